/* spin: a guest that never gives the CPU back.  It announces itself and then computes forever
 * without HLT, I/O or hypercalls, so the only way the hypervisor gets the CPU back is its own
 * preemption timer; the end-to-end tests check that the other guests keep their cadence.
 *
 *   spin: started */
#include "guests/lib/guest.h"

#include <stdint.h>
#include <stdio.h>

int guest_main(const struct tessera_boot_info *boot)
{
    printf("spin: started\n");
    /* volatile: the loop must really run, not be folded away or turned into a halt. */
    volatile uint64_t x = 1;
    for (;;)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
}
