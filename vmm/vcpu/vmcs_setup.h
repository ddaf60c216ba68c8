#ifndef TESSERA_VMM_VMCS_SETUP_H
#define TESSERA_VMM_VMCS_SETUP_H

#include <stdbool.h>

#include "vmm/vm.h"

/* Clears and loads the guest's VMCS and writes every field: the negotiated controls, the
 * hypervisor's own state to return to, and the guest's start state (64-bit mode, paging on
 * with the identity tables, interrupts off, RIP, RSP and the selectors of vm->boot).  False
 * with vm->reason set on a VMX failure. */
bool vmcs_setup(struct vm *vm);

#endif
