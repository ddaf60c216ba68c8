/* run-as: runs a program as another user, for the i915 guest's initrd (busybox-static has no
 * su, chpst or setuidgid).  cage refuses to run as root (it checks that it cannot regain root
 * after dropping it), so display-kiosk starts it through this as an ordinary user, with seatd
 * (running as root) opening the devices for it.
 *
 *   run-as UID GID PROGRAM [ARG...]      numeric ids; PROGRAM is a path (no PATH search)
 *
 * No supplementary groups, real, effective and saved ids all set, then execve with the same
 * environment.  A static program without a C library (raw system calls), like fbpicture. */
#include <asm/unistd.h>

static long sys3(long n, long a, long b, long c)
{
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c)
                     : "rcx", "r11", "memory");
    return ret;
}

static unsigned long len(const char *s)
{
    unsigned long n = 0;
    while (s[n])
        n++;
    return n;
}

static __attribute__((noreturn)) void die(const char *what)
{
    sys3(__NR_write, 2, (long)"run-as: ", 8);
    sys3(__NR_write, 2, (long)what, (long)len(what));
    sys3(__NR_write, 2, (long)"\n", 1);
    sys3(__NR_exit_group, 127, 0, 0);
    for (;;)
        ;
}

static long number(const char *s)
{
    long v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 1000000)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

__attribute__((noreturn, used)) void run_as_main(long *sp);
__attribute__((noreturn, used)) void run_as_main(long *sp)
{
    long argc = sp[0];
    char **argv = (char **)(sp + 1), **envp = argv + argc + 1;
    if (argc < 4)
        die("usage: run-as UID GID PROGRAM [ARG...]");
    long uid = number(argv[1]), gid = number(argv[2]);
    if (uid < 0 || gid < 0)
        die("UID and GID must be numbers");
    if (sys3(__NR_setgroups, 0, 0, 0) < 0 || sys3(__NR_setresgid, gid, gid, gid) < 0 ||
        sys3(__NR_setresuid, uid, uid, uid) < 0)
        die("cannot change user (not root?)");
    sys3(__NR_execve, (long)argv[3], (long)(argv + 3), (long)envp);
    die("cannot execute the program");
}

__asm__(".globl _start\n"
        "_start:\n"
        "    mov %rsp, %rdi\n"
        "    xor %ebp, %ebp\n"
        "    call run_as_main\n"
        "    hlt\n");
