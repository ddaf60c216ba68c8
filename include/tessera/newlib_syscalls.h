/* The system-call names newlib calls, for the hypervisor's and the guests' syscall layers.
 *
 * This newlib build (x86_64-elf; newlib/configure.host defines MISSING_SYSCALL_NAMES for it)
 * calls write(), sbrk(), ... rather than _write(), _sbrk(): a syscall layer defines the
 * conventional underscored functions and then NEWLIB_SYSCALL_ALIASES() gives them the plain
 * names too.  Include after the definitions' prototypes are visible. */
#ifndef TESSERA_NEWLIB_SYSCALLS_H
#define TESSERA_NEWLIB_SYSCALLS_H

#define NEWLIB_SYSCALL_ALIAS(plain, impl) __typeof__(impl) plain __attribute__((alias(#impl)))

#define NEWLIB_SYSCALL_ALIASES() \
    NEWLIB_SYSCALL_ALIAS(sbrk, _sbrk); \
    NEWLIB_SYSCALL_ALIAS(write, _write); \
    NEWLIB_SYSCALL_ALIAS(read, _read); \
    NEWLIB_SYSCALL_ALIAS(close, _close); \
    NEWLIB_SYSCALL_ALIAS(open, _open); \
    NEWLIB_SYSCALL_ALIAS(lseek, _lseek); \
    NEWLIB_SYSCALL_ALIAS(isatty, _isatty); \
    NEWLIB_SYSCALL_ALIAS(fstat, _fstat); \
    NEWLIB_SYSCALL_ALIAS(getpid, _getpid); \
    NEWLIB_SYSCALL_ALIAS(kill, _kill)

#endif
