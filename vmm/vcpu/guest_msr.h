/* The MSRs a guest may use beyond EFER and the TSC (docs/linux-guest.md), and where
 * each lives while the guest runs.  Every guest:
 *   - in the CPU, through the MSR bitmap (no exit):
 *       FS_BASE, GS_BASE                        the VMCS guest-state area switches them
 *       KERNEL_GS_BASE, STAR, LSTAR, CSTAR,     the VMCS does not switch these: the guest's
 *       SFMASK                                  values are loaded before its time slice and
 *                                               read back after it (guest_msr_enter/leave);
 *                                               the hypervisor never uses SYSCALL or SWAPGS
 *   - emulated: MISC_ENABLE (reads fast strings), PAT when it exits (its reset value, read only).
 * A Linux guest also has:
 *   - in the CPU: SYSENTER_CS/ESP/EIP (the VMCS saves and loads them on every exit and entry,
 *     SDM Vol. 3C §28.3.1, §27.3.2.1) and PAT (VMCS "load IA32_PAT" on entry, "save/load
 *     IA32_PAT" on exit, when the CPU has them: vmx.pat_switched);
 *   - emulated: MTRRcap (0: no variable or fixed ranges, no WC), MTRRdefType (stored; with EPT
 *     the guest's MTRRs have no effect, SDM §29.3.7.2), UCODE_REV, PLATFORM_ID,
 *     FEATURE_CONTROL (locked, VMX off), MISC_ENABLE writes of its own value.
 * Anything else gets #GP (exit_cpu.c).  A Tessera guest keeps the smaller set: its ABI promises
 * #GP for the rest (docs/guest-abi.md, the hostile-mem guest's `msr` attack). */
#ifndef TESSERA_VMM_VCPU_GUEST_MSR_H
#define TESSERA_VMM_VCPU_GUEST_MSR_H

#include <stdbool.h>
#include <stdint.h>

struct vcpu;

/* MTRRdefType after reset: MTRRs enabled, default type write-back.  Linux turns PAT off when
 * MTRRs are disabled (arch/x86/kernel/cpu/mtrr/mtrr.c mtrr_bp_init: "MTRRs disabled, skipping
 * PAT initialization too"), so E is set; FE stays clear (no fixed ranges). */
#define GUEST_MTRR_DEF_TYPE_RESET 0x806ULL
/* The microcode revision the virtual CPU reports (UCODE_REV bits 63:32): the guest cannot load
 * microcode, and Linux only compares revisions on bare metal. */
#define GUEST_UCODE_REVISION 1ULL

struct guest_msrs {
    uint64_t kernel_gs_base, star, lstar, cstar, sfmask; /* live in the CPU during a slice */
    uint64_t mtrr_def_type;
    bool live; /* the CPU holds this guest's values now */
};

/* The values after reset; if the CPU holds the guest's values, they are dropped first. */
void guest_msr_reset(struct vcpu *c);
/* Lets the MSRs that live in the CPU pass through the guest's MSR bitmap (with linux_set, a
 * Linux guest's too). */
void guest_msr_allow(uint8_t *msr_bitmap, bool linux_set);
/* Before the guest's time slice: its values into the CPU.  After it: read back, zeroed. */
void guest_msr_enter(struct vcpu *c);
void guest_msr_leave(struct vcpu *c);
/* An MSR exit for an emulated MSR: true with the value, false if the guest gets #GP. */
bool guest_msr_read(struct vcpu *c, uint32_t msr, uint64_t *value);
bool guest_msr_write(struct vcpu *c, uint32_t msr, uint64_t value);

#endif
