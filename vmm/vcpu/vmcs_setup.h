#ifndef TESSERA_VMM_VMCS_SETUP_H
#define TESSERA_VMM_VMCS_SETUP_H

#include <stdbool.h>

#include "vmm/vm.h"

/* Clears and loads the guest's VMCS and writes every field: the negotiated controls, the
 * hypervisor's own state to return to, and the guest's start state (64-bit mode at `entry`,
 * RSI = boot information, RSP = top of RAM).  False with vm->reason set on a VMX failure. */
bool vmcs_setup(struct vm *vm, uint64_t entry);

#endif
