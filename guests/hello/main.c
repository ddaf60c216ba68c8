/* hello: the simplest kiosk guest.  Says who it is, then prints a numbered tick every 100 ms,
 * forever, sleeping (HLT, a yield to the hypervisor) in between.  The end-to-end tests read its
 * console to check that guests run, keep their cadence and survive their neighbours:
 *
 *   hello from guest <id> (<name>)
 *   guest <id> tick <n> t=<ms>
 *
 * n counts printed ticks from 0; t is milliseconds since the guest started, from the TSC.
 * Ticks are due at t = n * period on a fixed grid; a tick that comes late (the guest was not
 * scheduled) is printed at once and the grid points it slept through are skipped, so a stall
 * shows as a gap in t rather than as a burst.  Command line: period_ms=<n> (default 100).
 *
 * Keys typed on its console (shell `console <vm>`) are acknowledged on the next tick:
 *
 *   guest <id> key '<c>'        (a printable character; others as key 0x<hex>) */
#include "guests/lib/guest.h"

#include <inttypes.h>
#include <stdio.h>

#define DEFAULT_PERIOD_MS 100

int guest_main(const struct tessera_boot_info *boot)
{
    uint64_t period_ms = DEFAULT_PERIOD_MS;
    if (guest_cmdline_u64(boot, "period_ms", &period_ms) && period_ms == 0)
        period_ms = DEFAULT_PERIOD_MS;
    uint64_t period_us = period_ms * 1000;

    printf("hello from guest %" PRIu32 " (%s)\n", boot->guest_id, boot->name);
    uint64_t due_us = 0;
    for (uint64_t n = 0;; n++) {
        guest_sleep_until_us(due_us);
        for (int c; (c = guest_console_getc()) >= 0;) {
            if (c >= 0x20 && c < 0x7F)
                printf("guest %" PRIu32 " key '%c'\n", boot->guest_id, c);
            else
                printf("guest %" PRIu32 " key 0x%02x\n", boot->guest_id, c);
        }
        uint64_t now_us = guest_now_us();
        printf("guest %" PRIu32 " tick %" PRIu64 " t=%" PRIu64 "\n", boot->guest_id, n,
               now_us / 1000);
        /* The next grid point after now. */
        due_us = (now_us / period_us + 1) * period_us;
    }
}
