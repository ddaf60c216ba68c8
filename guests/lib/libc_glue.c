/* The system-call layer newlib calls (newlib/libc/include/reent.h lists it), for a guest: stdout
 * and stderr go to the console, stdin reads it, the heap is the guest RAM above the image, and
 * what a guest has no use for (files, processes) fails with the proper errno. */
#include "tessera/newlib_syscalls.h"
#include "guests/lib/guest.h"
#include "guests/lib/internal.h"
#include "guests/lib/x86.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* newlib's reentrant wrappers (_write_r, ...) copy the plain global `errno` into the caller's
 * errno after the call; a guest that calls write() directly reads its errno through __errno().
 * Set both. */
#undef errno
extern int errno;

static int fail(int e)
{
    *__errno() = e;
    errno = e;
    return -1;
}

static char *heap_base, *heap_brk, *heap_limit;

void guest_heap_init(uintptr_t base, uintptr_t limit)
{
    base = (base + 15) & ~(uintptr_t)15;
    heap_base = heap_brk = (char *)base;
    heap_limit = (char *)(limit > base ? limit : base);
}

bool guest_heap_limit(uintptr_t limit)
{
    if (!heap_base || (char *)limit < heap_brk)
        return false; /* malloc already handed out memory above it */
    heap_limit = (char *)limit;
    return true;
}

void *_sbrk(ptrdiff_t incr);
void *_sbrk(ptrdiff_t incr)
{
    if (!heap_base || incr > heap_limit - heap_brk || incr < heap_base - heap_brk) {
        fail(ENOMEM);
        return (void *)-1;
    }
    char *old = heap_brk;
    heap_brk += incr;
    return old;
}

int _write(int fd, const char *buf, int len);
int _write(int fd, const char *buf, int len)
{
    if (fd != 1 && fd != 2)
        return fail(EBADF);
    if (len < 0)
        return fail(EINVAL);
    guest_console_write(buf, (size_t)len);
    return len;
}

/* stdin: waits (yielding with HLT) for the first byte, then takes what has arrived, up to the
 * end of a line. */
int _read(int fd, char *buf, int len);
int _read(int fd, char *buf, int len)
{
    if (fd != 0)
        return fail(EBADF);
    if (len <= 0)
        return 0;
    int c;
    while ((c = guest_console_getc()) < 0)
        x86_hlt();
    int n = 0;
    buf[n++] = (char)c;
    while (n < len && c != '\n' && c != '\r' && (c = guest_console_getc()) >= 0)
        buf[n++] = (char)c;
    return n;
}

int _close(int fd);
int _close(int fd)
{
    return fail(EBADF);
}
int _open(const char *path, int flags, int mode);
int _open(const char *path, int flags, int mode)
{
    return fail(ENOSYS);
}
int _lseek(int fd, int off, int whence);
int _lseek(int fd, int off, int whence)
{
    return fail(ESPIPE);
}
int _isatty(int fd);
int _isatty(int fd)
{
    return fd >= 0 && fd <= 2;
}
int _getpid(void);
int _getpid(void)
{
    return 1;
}
int _kill(int pid, int sig);
int _kill(int pid, int sig)
{
    return fail(EINVAL);
}

/* The console is a character device (a terminal, as isatty says). */
int _fstat(int fd, struct stat *st);
int _fstat(int fd, struct stat *st)
{
    if (fd < 0 || fd > 2)
        return fail(EBADF);
    st->st_mode = S_IFCHR;
    return 0;
}

/* exit() (after newlib flushed stdio), abort() and a failed assert() end here. */
void _exit(int status);
void _exit(int status)
{
    guest_exit_now((uint64_t)(unsigned)status);
}

/* newlib calls the plain names (see tessera/newlib_syscalls.h). */
NEWLIB_SYSCALL_ALIASES();
