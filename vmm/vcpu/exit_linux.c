/* A Linux guest's platform: reset, power-off, and the empty bus (exit_linux.h). */
#include "vmm/vcpu/exit_linux.h"

#include "arch/x86/cpu.h"
#include "arch/x86/regs.h"
#include "arch/x86/vmx.h"
#include "vmm/loader/linux_guest.h"
#include "vmm/log.h"
#include "vmm/vcpu/mmio.h"

#include <stdio.h>

#define KERNEL_HALF_START   (1ULL << 32)    /* above the identity map: the kernel's own mappings */
#define UNCLAIMED_PAGE_MASK (~0xFFFULL)

enum exit_action exit_linux_restart(struct vm *vm, const char *why)
{
    log_info("guest %u (%s): %s: restarting it", vm->id, vm->cfg->name, why);
    return vm_start(vm) ? EXIT_YIELD : EXIT_STOPPED;
}

enum exit_action exit_linux_halted(struct vm *vm, const struct exit_info *x)
{
    if (x->rip < KERNEL_HALF_START)
        vm_stop(vm, VM_CRASHED, "its boot code halted at RIP %#llx before the kernel ran (the decompressor stops so "
                "after an error it prints on the guest's console, e.g. a corrupt compressed kernel)",
                (unsigned long long)x->rip);
    else
        vm_stop(vm, VM_EXITED, "powered off (halted with interrupts off at RIP %#llx)", (unsigned long long)x->rip);
    return EXIT_STOPPED;
}

bool exit_linux_io(struct vm *vm, const struct exit_info *x, unsigned port, unsigned size, bool in, uint64_t *rax,
                   enum exit_action *action)
{
    struct linux_guest *lg = vm->linux_guest;
    if (port == RST_CNT_PORT && size == 1) {
        if (in) {
            *rax = (*rax & ~0xFFULL) | (lg->reset_control & ~RST_CNT_RST_CPU);
        } else {
            lg->reset_control = (uint8_t)(*rax & RST_CNT_MASK);
            if (lg->reset_control & RST_CNT_RST_CPU) {
                *action = exit_linux_restart(vm, "reset through port 0xCF9");
                return true;
            }
        }
    } else if (port == I8042_COMMAND_PORT && size == 1 && !in && (uint8_t)*rax == I8042_CMD_PULSE_RESET) {
        *action = exit_linux_restart(vm, "reset through the keyboard controller");
        return true;
    } else if (vacpi_pm_claims_port((uint16_t)port, size)) {
        uint64_t mask = size == 4 ? 0xFFFFFFFFULL : (1ULL << (8 * size)) - 1;
        if (in) {
            uint64_t v = vacpi_pm_read(&lg->pm, (uint16_t)port, size, rdtsc());
            *rax = size == 4 ? v : ((*rax & ~mask) | v);    /* IN to EAX zeroes the upper half */
        } else {
            switch (vacpi_pm_write(&lg->pm, (uint16_t)port, size, (uint32_t)(*rax & mask))) {
            case VACPI_PM_POWER_OFF:
                vm_stop(vm, VM_EXITED, "powered off (ACPI S5)");
                *action = EXIT_STOPPED;
                return true;
            case VACPI_PM_SLEEP_REFUSED:
                log_warn("guest %u (%s): asked for an ACPI sleep state other than S5 (PM1_CNT %#x): not "
                         "supported, ignored", vm->id, vm->cfg->name, lg->pm.cnt);
                break;
            case VACPI_PM_NONE:
                break;
            }
        }
    } else {
        return false;
    }
    exit_skip_instruction(x);
    *action = EXIT_RESUME;
    return true;
}

/* Logs an access to an unclaimed page the first time it is seen this boot. */
static void note_unclaimed(struct vm *vm, uint64_t gpa, unsigned size, bool write)
{
    struct linux_guest *lg = vm->linux_guest;
    lg->unclaimed_accesses++;
    uint64_t page = gpa & UNCLAIMED_PAGE_MASK;
    for (unsigned i = 0; i < lg->n_unclaimed && i < LINUX_UNCLAIMED_LOGGED; i++)
        if (lg->unclaimed[i] == page)
            return;
    if (lg->n_unclaimed < LINUX_UNCLAIMED_LOGGED) {
        lg->unclaimed[lg->n_unclaimed] = page;
        log_info("guest %u (%s): %u-byte %s of unclaimed MMIO at %#llx: %s (logged once per page)", vm->id,
                 vm->cfg->name, size, write ? "write" : "read", (unsigned long long)gpa,
                 write ? "ignored" : "reads all ones");
    } else if (lg->n_unclaimed == LINUX_UNCLAIMED_LOGGED) {
        log_info("guest %u (%s): unclaimed MMIO on more than %u pages: no longer logged", vm->id, vm->cfg->name,
                 LINUX_UNCLAIMED_LOGGED);
    }
    if (lg->n_unclaimed <= LINUX_UNCLAIMED_LOGGED)
        lg->n_unclaimed++;
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

const struct mmio_region *exit_linux_unclaimed(struct vm *vm)
{
    static struct mmio_region r[TESSERA_MAX_GUESTS];
    if (vm->id >= TESSERA_MAX_GUESTS)
        return NULL;
    r[vm->id] = (struct mmio_region){ 0, ~0ULL, unclaimed_read, unclaimed_write, vm, "unclaimed MMIO" };
    return &r[vm->id];
}
