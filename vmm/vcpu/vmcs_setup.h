#ifndef TESSERA_VMM_VMCS_SETUP_H
#define TESSERA_VMM_VMCS_SETUP_H

#include <stdbool.h>

#include <stdint.h>

#include "vmm/vm.h"

struct vcpu;

/* Clears and loads the vCPU's VMCS and writes every field: the negotiated controls, the
 * hypervisor's own state to return to, and the guest's start state (64-bit mode, paging on
 * with the identity tables, interrupts off, RIP, RSP and the selectors of vm->boot).  False
 * with vm->reason set on a VMX failure. */
bool vmcs_setup(struct vcpu *c);
/* With the vCPU's VMCS current: its guest state becomes an AP's at a STARTUP with `vector`
 * (real mode at vector << 12).  Linux guests only (unrestricted guest); false with vm->reason
 * set otherwise or on a VMX failure. */
bool vmcs_enter_real_mode(struct vcpu *c, uint8_t vector);

#endif
