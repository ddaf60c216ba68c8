/* A Linux guest's platform on its board (docs/linux-guest.md "What stops a Linux guest"):
 *   - reset: the keyboard controller's pulse-reset command (port 0x64 <- 0xFE) and the reset
 *     control register (port 0xCF9, RST_CPU set) restart the guest, as Linux's reboot does
 *     (arch/x86/reset_regs.h);
 *   - ACPI fixed hardware (vmm/vdev/vacpi_pm.h): PM1 blocks and the PM timer; S5 powers it off;
 *   - unclaimed MMIO reads all ones and ignores writes, as an empty bus does, logged once per
 *     page, instead of stopping the guest;
 *   - a linear framebuffer (vmm/display/linux_fb.h) outside its RAM, which the loader describes
 *     in the zero page and the wall shows. */
#include "vmm/board/board.h"
#include "vmm/board/board_internal.h"

#include "arch/x86/cpu.h"
#include "arch/x86/reset_regs.h"
#include "arch/x86/timer.h"
#include "boot/linux/linux_layout.h"
#include "vmm/display/linux_fb.h"
#include "vmm/log.h"
#include "vmm/vdev/vacpi_pm.h"
#include "vmm/vm.h"

#include <stdio.h>
#include <stdlib.h>

#define UNCLAIMED_LOGGED    16u /* unclaimed MMIO pages logged per boot */
#define UNCLAIMED_PAGE_MASK (~0xFFFULL)

struct linux_board {
    struct vm *vm;
    struct lfb fb;
    uint8_t reset_control;                /* port 0xCF9 as last written */
    struct vacpi_pm pm;                   /* ACPI fixed hardware: PM1 blocks, PM timer */
    uint64_t unclaimed[UNCLAIMED_LOGGED]; /* page addresses already logged */
    unsigned n_unclaimed;
    uint64_t unclaimed_accesses; /* every access to unclaimed MMIO this boot */
};

/* ---- reset ---- */

static enum io_status restart(struct vm *vm, const char *why)
{
    log_info("guest %u (%s): %s: restarting it", vm->id, vm->cfg->name, why);
    return vm_start(vm) ? IO_RESTARTED : IO_STOPPED;
}

static enum io_status rst_cnt_in(void *ctx, uint16_t port, unsigned size, uint32_t *value)
{
    struct linux_board *lb = ctx;
    if (size != 1)
        return IO_UNCLAIMED;
    *value = lb->reset_control & ~RST_CNT_RST_CPU;
    return IO_DONE;
}

static enum io_status rst_cnt_out(void *ctx, uint16_t port, unsigned size, uint32_t value)
{
    struct linux_board *lb = ctx;
    if (size != 1)
        return IO_UNCLAIMED;
    lb->reset_control = (uint8_t)(value & RST_CNT_MASK);
    return lb->reset_control & RST_CNT_RST_CPU ? restart(lb->vm, "reset through port 0xCF9")
                                               : IO_DONE;
}

/* Only the pulse-reset command: the rest of the 8042 is not there (reads all ones). */
static enum io_status i8042_out(void *ctx, uint16_t port, unsigned size, uint32_t value)
{
    struct linux_board *lb = ctx;
    if (size != 1 || (uint8_t)value != I8042_CMD_PULSE_RESET)
        return IO_UNCLAIMED;
    return restart(lb->vm, "reset through the keyboard controller");
}

/* ---- ACPI fixed hardware ---- */

static enum io_status pm_in(void *ctx, uint16_t port, unsigned size, uint32_t *value)
{
    struct linux_board *lb = ctx;
    if (!vacpi_pm_claims_port(port, size))
        return IO_UNCLAIMED;
    *value = (uint32_t)vacpi_pm_read(&lb->pm, port, size, rdtsc());
    return IO_DONE;
}

static enum io_status pm_out(void *ctx, uint16_t port, unsigned size, uint32_t value)
{
    struct linux_board *lb = ctx;
    struct vm *vm = lb->vm;
    if (!vacpi_pm_claims_port(port, size))
        return IO_UNCLAIMED;
    switch (vacpi_pm_write(&lb->pm, port, size, value)) {
    case VACPI_PM_POWER_OFF:
        vm_stop(vm, VM_EXITED, "powered off (ACPI S5)");
        return IO_STOPPED;
    case VACPI_PM_SLEEP_REFUSED:
        log_warn("guest %u (%s): asked for an ACPI sleep state other than S5 (PM1_CNT %#x): not "
                 "supported, ignored",
                 vm->id, vm->cfg->name, lb->pm.cnt);
        break;
    case VACPI_PM_NONE:
        break;
    }
    return IO_DONE;
}

/* ---- the empty bus behind every guest-physical address nothing else claims ---- */

/* Logs an access to an unclaimed page the first time it is seen this boot. */
static void note_unclaimed(struct linux_board *lb, uint64_t gpa, unsigned size, bool write)
{
    const struct vm *vm = lb->vm;
    lb->unclaimed_accesses++;
    uint64_t page = gpa & UNCLAIMED_PAGE_MASK;
    for (unsigned i = 0; i < lb->n_unclaimed && i < UNCLAIMED_LOGGED; i++)
        if (lb->unclaimed[i] == page)
            return;
    if (lb->n_unclaimed < UNCLAIMED_LOGGED) {
        lb->unclaimed[lb->n_unclaimed] = page;
        log_info("guest %u (%s): %u-byte %s of unclaimed MMIO at %#llx: %s (logged once per page)",
                 vm->id, vm->cfg->name, size, write ? "write" : "read", (unsigned long long)gpa,
                 write ? "ignored" : "reads all ones");
    } else if (lb->n_unclaimed == UNCLAIMED_LOGGED) {
        log_info("guest %u (%s): unclaimed MMIO on more than %u pages: no longer logged", vm->id,
                 vm->cfg->name, UNCLAIMED_LOGGED);
    }
    if (lb->n_unclaimed <= UNCLAIMED_LOGGED)
        lb->n_unclaimed++;
}

static bool unclaimed_read(void *ctx, uint64_t gpa, unsigned size, uint64_t *value)
{
    note_unclaimed(ctx, gpa, size, false);
    *value = size >= 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
    return true;
}

static bool unclaimed_write(void *ctx, uint64_t gpa, unsigned size, uint64_t value)
{
    note_unclaimed(ctx, gpa, size, true);
    return true;
}

/* ---- the device ---- */

static bool linux_init(struct vm *vm, void *ctx)
{
    struct linux_board *lb = ctx;
    io_bus_set_unclaimed(&vm->io, &(struct io_mmio){ .read = unclaimed_read,
                                                     .write = unclaimed_write,
                                                     .ctx = lb,
                                                     .name = "unclaimed MMIO" });
    return board_add_ports(vm, &(struct io_ports){ RST_CNT_PORT, 1, rst_cnt_in, rst_cnt_out, lb,
                                                   "reset control" }) &&
           board_add_ports(vm, &(struct io_ports){ I8042_COMMAND_PORT, 1, NULL, i8042_out, lb,
                                                   "8042 command" }) &&
           board_add_ports(vm, &(struct io_ports){ ACPI_PM_BASE, ACPI_PM_PORTS, pm_in, pm_out, lb,
                                                   "ACPI PM" });
}

/* Its framebuffer, when its memory is first there: the configuration's framebuffer-px, or its
 * tile's size. */
static bool create_fb(struct vm *vm, struct linux_board *lb)
{
    if (vm->ram_bytes > LINUX_FB_GPA) {
        snprintf(vm->reason, sizeof vm->reason,
                 "%u MiB of RAM: a Linux guest's RAM must end below its "
                 "framebuffer at %#llx (%llu MiB)",
                 vm->cfg->ram_mib, (unsigned long long)LINUX_FB_GPA,
                 (unsigned long long)(LINUX_FB_GPA >> 20));
        return false;
    }
    uint32_t w = vm->cfg->fb_width_px ? vm->cfg->fb_width_px : vm->cfg->tile.width;
    uint32_t h = vm->cfg->fb_height_px ? vm->cfg->fb_height_px : vm->cfg->tile.height;
    if (!lfb_create(vm, &lb->fb, w, h))
        return false;
    int rc = io_bus_reserve(&vm->io, lb->fb.fb.base, lb->fb.fb.bytes, "framebuffer");
    if (rc != IO_OK)
        log_warn("guest %u (%s): its framebuffer at %#llx is not kept free of BARs: %s", vm->id,
                 vm->cfg->name, (unsigned long long)lb->fb.fb.base, io_strerror(rc));
    vm->lfb = &lb->fb;
    return true;
}

static bool linux_start(struct vm *vm, void *ctx)
{
    struct linux_board *lb = ctx;
    if (!lb->fb.hpa && !create_fb(vm, lb))
        return false;
    lfb_clear(&lb->fb);
    lb->reset_control = 0;
    vacpi_pm_reset(&lb->pm, timer_tsc_hz());
    lb->n_unclaimed = 0;
    lb->unclaimed_accesses = 0;
    return true;
}

static void linux_stats(const struct vm *vm, void *ctx, char *buf, size_t len)
{
    const struct linux_board *lb = ctx;
    snprintf(buf, len, "framebuffer %ux%u at %#llx; %llu unclaimed MMIO accesses this boot",
             lb->fb.fb.width, lb->fb.fb.height, (unsigned long long)lb->fb.fb.base,
             (unsigned long long)lb->unclaimed_accesses);
}

bool board_linux_attach(struct vm *vm)
{
    struct linux_board *lb = calloc(1, sizeof *lb);
    if (!lb) {
        vm_stop(vm, VM_FAILED, "no memory for its Linux guest state");
        return false;
    }
    lb->vm = vm;
    if (vm_add_device(vm, &(struct vm_device){ .name = "linux platform",
                                               .ctx = lb,
                                               .init = linux_init,
                                               .start = linux_start,
                                               .stats = linux_stats }))
        /* cppcheck-suppress memleak ; the VM keeps it, the device's context for its whole life */
        return true;
    free(lb); /* the guest never starts: nothing reaches it */
    return false;
}
