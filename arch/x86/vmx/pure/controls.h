/* VMX control negotiation: how a wanted set of VM-execution, VM-exit and VM-entry controls is
 * reconciled with what a capability MSR allows, the CR0/CR4 fixed bits, and the SDM's name of
 * every control bit (for messages such as "required VM-execution control 'enable EPT' is not
 * supported").  Pure: the caller reads the MSRs and passes their values in.
 *
 * The control bit MASKS (PIN_*, PROC_*, PROC2_*, EXIT_*, ENTRY_*) are named once, in
 * arch/x86/vmx_controls.h; the name table here is indexed by bit number only.
 *
 * Sources (Intel SDM Vol. 3C, 2023 numbering; chapter 24 / appendix A in older editions):
 *   Appendix A.3.1  IA32_VMX_PINBASED_CTLS / IA32_VMX_TRUE_PINBASED_CTLS
 *   Appendix A.3.2  IA32_VMX_PROCBASED_CTLS / IA32_VMX_TRUE_PROCBASED_CTLS
 *   Appendix A.3.3  IA32_VMX_PROCBASED_CTLS2
 *   Appendix A.4    IA32_VMX_EXIT_CTLS / IA32_VMX_TRUE_EXIT_CTLS
 *   Appendix A.5    IA32_VMX_ENTRY_CTLS / IA32_VMX_TRUE_ENTRY_CTLS
 *     In each, bits 31:0 are the allowed 0-settings (a 1 there means the control must be 1)
 *     and bits 63:32 the allowed 1-settings (a 0 there means the control must be 0).
 *   Appendix A.7    IA32_VMX_CR0_FIXED0/FIXED1, A.8 IA32_VMX_CR4_FIXED0/FIXED1: a bit that is
 *     1 in FIXED0 must be 1 in CR0/CR4 in VMX operation; a bit that is 0 in FIXED1 must be 0.
 *   §25.6.1 Table "Definitions of Pin-Based VM-Execution Controls"
 *   §25.6.2 Tables "Definitions of Primary / Secondary Processor-Based VM-Execution Controls"
 *   §25.7.1 Table "Definitions of Primary VM-Exit Controls"
 *   §25.8.1 Table "Definitions of VM-Entry Controls" */
#ifndef TESSERA_ARCH_X86_VMX_PURE_CONTROLS_H
#define TESSERA_ARCH_X86_VMX_PURE_CONTROLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which 32-bit control field a bit belongs to. */
enum vmx_ctl_kind {
    VMX_CTL_PIN,   /* pin-based VM-execution controls */
    VMX_CTL_PROC,  /* primary processor-based VM-execution controls */
    VMX_CTL_PROC2, /* secondary processor-based VM-execution controls */
    VMX_CTL_EXIT,  /* (primary) VM-exit controls */
    VMX_CTL_ENTRY, /* VM-entry controls */
};
#define VMX_CTL_KINDS 5

/* Split of a control capability MSR (Appendix A.3-A.5). */
#define VMX_CTL_CAP_ALLOWED0(cap) ((uint32_t)(cap))         /* bits that must be 1 */
#define VMX_CTL_CAP_ALLOWED1(cap) ((uint32_t)((cap) >> 32)) /* bits that may be 1 */

/* Computes a control field value from a capability MSR:
 *   *out = must-be-1 | (required & may-be-1) | (optional & may-be-1).
 * Returns 0, or -1 when a required bit may not be 1 on this processor (those bits are put in
 * *missing_required, which may be NULL; *out still holds the value that the hardware would
 * accept without them).  Also -1, with the offending bits in *missing_required, when the MSR
 * itself is contradictory (a bit that must be 1 but may not be 1): no value can be valid.
 * *out may not be NULL (then -1 and nothing written). */
int vmx_ctl_negotiate(uint64_t cap_msr, uint32_t required, uint32_t optional, uint32_t *out,
                      uint32_t *missing_required);

/* True when `value` is an allowed setting of the control field described by cap_msr. */
bool vmx_ctl_value_ok(uint64_t cap_msr, uint32_t value);

/* CR0/CR4 in VMX operation (Appendix A.7/A.8): sets the bits that are 1 in fixed0 and clears
 * the bits that are 0 in fixed1. */
uint64_t vmx_fixed_bits_apply(uint64_t value, uint64_t fixed0, uint64_t fixed1);
bool vmx_fixed_bits_ok(uint64_t value, uint64_t fixed0, uint64_t fixed1);
/* The CR0 fixed-0 mask that applies to a GUEST's CR0: with the "unrestricted guest" control
 * set, PE and PG may be 0 (§27.3.1.1 "Checks on Guest Control Registers", A.7). */
uint64_t vmx_guest_cr0_fixed0(uint64_t cr0_fixed0, bool unrestricted_guest);

/* The SDM's name of control `bit` (0..31) of the given field, e.g. "HLT exiting", "enable
 * EPT", "host address-space size"; "(reserved)" for bits without a name (including the
 * default-1 reserved bits) and for an out-of-range kind or bit.  Never NULL. */
const char *vmx_ctl_bit_name(enum vmx_ctl_kind kind, unsigned bit);
/* "pin-based VM-execution control", "VM-exit control", ... ; "(unknown)" when out of range. */
const char *vmx_ctl_kind_name(enum vmx_ctl_kind kind);

/* Writes a one-line message naming every bit in `missing`, e.g. "required secondary
 * processor-based VM-execution control 'enable EPT' is not supported" (several bits are listed
 * comma-separated).  Returns what snprintf returns (the length it wanted). */
int vmx_ctl_describe_missing(enum vmx_ctl_kind kind, uint32_t missing, char *buf, size_t len);

#endif
