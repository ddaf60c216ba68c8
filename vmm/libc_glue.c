/* The system-call layer newlib expects (newlib/libc/include/reent.h lists them).  Output goes to
 * the console, the heap is one region reserved at boot, and everything a hypervisor has no use
 * for (files, processes) fails with the proper errno rather than pretending. */
#include "tessera/newlib_syscalls.h"
#include "vmm/libc_glue.h"

#include "arch/x86/cpu.h"
#include "vmm/console.h"

#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

#undef errno
extern int errno;

static char *heap_base, *heap_brk, *heap_limit;

void libc_heap_init(void *base, size_t size)
{
    heap_base = heap_brk = base;
    heap_limit = heap_base + size;
}

size_t libc_heap_used(void)
{
    return (size_t)(heap_brk - heap_base);
}
size_t libc_heap_size(void)
{
    return (size_t)(heap_limit - heap_base);
}

void *_sbrk(ptrdiff_t incr);
void *_sbrk(ptrdiff_t incr)
{
    if (!heap_base || incr > heap_limit - heap_brk || incr < heap_base - heap_brk) {
        errno = ENOMEM;
        return (void *)-1;
    }
    char *old = heap_brk;
    heap_brk += incr;
    return old;
}

int _write(int fd, const char *buf, int len);
int _write(int fd, const char *buf, int len)
{
    if (fd != 1 && fd != 2) {
        errno = EBADF;
        return -1;
    }
    console_write(buf, (size_t)len);
    return len;
}

/* The shell reads the UART directly; stdin is not a stream here. */
int _read(int fd, char *buf, int len);
int _read(int fd, char *buf, int len)
{
    errno = EBADF;
    return -1;
}
int _close(int fd);
int _close(int fd)
{
    errno = EBADF;
    return -1;
}
int _open(const char *path, int flags, int mode);
int _open(const char *path, int flags, int mode)
{
    errno = ENOSYS;
    return -1;
}
int _lseek(int fd, int off, int whence);
int _lseek(int fd, int off, int whence)
{
    errno = ESPIPE;
    return -1;
}
int _isatty(int fd);
int _isatty(int fd)
{
    return fd <= 2;
}
int _fstat(int fd, struct stat *st);
int _fstat(int fd, struct stat *st)
{
    if (fd > 2) {
        errno = EBADF;
        return -1;
    }
    st->st_mode = S_IFCHR;
    return 0;
}
int _getpid(void);
int _getpid(void)
{
    return 1;
}
int _kill(int pid, int sig);
int _kill(int pid, int sig)
{
    errno = EINVAL;
    return -1;
}

/* Debian's libfdt.a is built with -fstack-protector-strong; its canary is read at %fs:0x28. */
void __stack_chk_fail(void);
void __stack_chk_fail(void)
{
    console_puts("\ntessera: stack smashing detected inside a library call; stopping\n");
    console_flush();
    cpu_halt_forever();
}

/* abort() and a failed assert() end here: the hypervisor stops with the reason on the console. */
void _exit(int status);
void _exit(int status)
{
    console_puts("\ntessera: libc called _exit; stopping\n");
    console_flush();
    cpu_halt_forever();
}

/* newlib calls the plain names (see tessera/newlib_syscalls.h). */
NEWLIB_SYSCALL_ALIASES();
