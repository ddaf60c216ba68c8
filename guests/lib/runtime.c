/* From start.S to guest_main: check what the hypervisor handed over, then set up the pieces of
 * the library that need the boot info (clock, heap). */
#include "guests/lib/guest.h"
#include "guests/lib/internal.h"

#include <stdint.h>
#include <stdio.h>

static const struct tessera_boot_info *boot_info;

const struct tessera_boot_info *guest_boot_info(void)
{
    return boot_info;
}

static __attribute__((noreturn)) void bad_boot(const char *why, uint64_t value)
{
    guest_console_puts("guest: ");
    guest_console_puts(why);
    guest_console_puts(" ");
    guest_console_put_hex(value);
    guest_console_puts(", stopping\n");
    guest_exit_now(GUEST_EXIT_BAD_BOOT);
}

void guest_runtime_start(const struct tessera_boot_info *boot)
{
    guest_trap_init(); /* first, so a bad boot-info pointer faults visibly */

    uintptr_t at = (uintptr_t)boot;
    if (!boot || at % 8 != 0 || at >= (uintptr_t)_image_start)
        bad_boot("boot info pointer (RSI) is not in low guest RAM:", at);
    if (boot->magic != TESSERA_BOOT_MAGIC)
        bad_boot("boot info has the wrong magic", boot->magic);
    if (boot->version != TESSERA_BOOT_VERSION)
        bad_boot("boot info version is not supported:", boot->version);
    if (boot->tsc_hz == 0)
        bad_boot("boot info gives no TSC rate:", boot->tsc_hz);
    if (boot->ram_bytes < (uintptr_t)_image_end)
        bad_boot("guest RAM ends below the image end, RAM bytes", boot->ram_bytes);
    boot_info = boot;

    guest_time_init(boot->tsc_hz);
    guest_irq_init();
    /* The heap is all RAM above the image: the stack is in .bss, and the hypervisor keeps
     * nothing there (its boot info, GDT and page tables sit below 1 MiB). */
    guest_heap_init((uintptr_t)_image_end, (uintptr_t)boot->ram_bytes);

    /* Unbuffered: each printf reaches the console in one write, and nothing is left behind in
     * a buffer when the guest faults or is stopped. */
    setvbuf(stdout, NULL, _IONBF, 0);
    setvbuf(stderr, NULL, _IONBF, 0);

    int status = guest_main(boot);
    guest_exit((uint64_t)(unsigned)status);
}
