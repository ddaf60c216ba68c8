/* A Linux guest's CPU: HLT with interrupts off ends it (exit_linux.h). */
#include "vmm/vcpu/exit_linux.h"

#include "vmm/log.h"

#define KERNEL_HALF_START (1ULL << 32) /* above the identity map: the kernel's own mappings */

enum exit_action exit_linux_halted(struct vcpu *c, const struct exit_info *x)
{
    struct vm *vm = c->vm;
    if (c->index != 0) {
        c->mp.mp = VIPI_WAIT_FOR_SIPI;
        log_info("guest %u (%s): vCPU %u halted with interrupts off at RIP %#llx: parked until "
                 "an INIT and STARTUP",
                 vm->id, vm->cfg->name, c->index, (unsigned long long)x->rip);
        return EXIT_YIELD;
    }
    if (x->rip < KERNEL_HALF_START)
        vm_stop(
            vm, VM_CRASHED,
            "its boot code halted at RIP %#llx before the kernel ran (the decompressor stops so "
            "after an error it prints on the guest's console, e.g. a corrupt compressed kernel)",
            (unsigned long long)x->rip);
    else
        vm_stop(vm, VM_EXITED, "powered off (halted with interrupts off at RIP %#llx)",
                (unsigned long long)x->rip);
    return EXIT_STOPPED;
}
