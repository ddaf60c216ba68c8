/* Hypercalls: VMCALL with the call number in RAX and arguments in RDI and RSI; the result comes
 * back in RAX (TESSERA_HC_UNKNOWN_RESULT for a number the hypervisor does not know). */
#include "guests/lib/guest.h"
#include "guests/lib/internal.h"
#include "guests/lib/x86.h"

#include <stdio.h>

uint64_t guest_hypercall(uint64_t nr, uint64_t arg0, uint64_t arg1)
{
    uint64_t ret;
    __asm__ volatile("vmcall" : "=a"(ret) : "a"(nr), "D"(arg0), "S"(arg1) : "memory");
    return ret;
}

void guest_exit_now(uint64_t status)
{
    guest_hypercall(TESSERA_HC_EXIT, status, 0);
    /* A hypervisor that let us go on after an exit: park for good, yielding every time. */
    for (;;)
        x86_hlt();
}

void guest_exit(uint64_t status)
{
    fflush(stdout);
    fflush(stderr);
    guest_exit_now(status);
}

void guest_yield(void)
{
    guest_hypercall(TESSERA_HC_YIELD, 0, 0);
}
