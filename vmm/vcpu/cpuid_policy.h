/* What CPUID tells a Linux guest: a pure filter over what the real CPU answered
 * (docs/linux-guest.md; leaves and bits from Intel SDM Vol. 2A "CPUID", Table 3-8 and
 * the leaf descriptions; Linux 6.1 users named beside each rule in cpuid_policy.c).
 *
 * The guest gets one package of `cpus` cores with one thread each (the vCPU asking is core
 * `apic_id`, its x2APIC ID), x2APIC with the TSC-deadline timer
 * and an always-running APIC timer (ARAT), the TSC rate in leaves 0x15/0x16 (from the
 * hypervisor's own calibration, so the kernel never measures it with the PIT), and none of the
 * features whose instructions or MSRs the hypervisor does not give guests: no VMX, MONITOR,
 * XSAVE/AVX (guest state is saved with FXSAVE), PMU, machine check, thermal/power management,
 * RDTSCP, INVPCID, TSX, SGX, 5-level paging, speculation-control MSRs. */
#ifndef TESSERA_VMM_VCPU_CPUID_POLICY_H
#define TESSERA_VMM_VCPU_CPUID_POLICY_H

#include <stdint.h>

#include "arch/x86/regs.h"

/* The highest basic leaf a Linux guest sees: 0x16 (processor frequency), which Linux reads for
 * its TSC rate. */
#define CPUID_LINUX_MAX_BASIC 0x16u
/* The hypervisor leaves 0x40000000-0x4FFFFFFF (SDM: "reserved for hypervisor use"). */
#define CPUID_HV_FIRST 0x40000000u
#define CPUID_HV_LAST  0x4FFFFFFFu

struct cpuid_policy {
    uint64_t tsc_hz;         /* the TSC rate the guest is told */
    uint32_t host_max_basic; /* CPUID.0:EAX of the real CPU */
    uint32_t host_max_ext;   /* CPUID.80000000h:EAX of the real CPU */
    uint32_t apic_id;        /* the vCPU that asks: its x2APIC ID (its index in the guest) */
    uint32_t cpus;           /* the guest's vCPUs (0 counts as 1) */
};

/* The leaf whose real answer the filter starts from, and that the filter is then called with:
 * the leaf itself, or 0x16 for a leaf above the guest's basic or extended maximum (the SDM:
 * such leaves return the highest basic leaf's data).  Leaves the policy builds alone still go
 * through the real CPU; the filter ignores what it returned then. */
uint32_t cpuid_policy_source_leaf(const struct cpuid_policy *p, uint32_t leaf);

/* The crystal rate leaf 0x15 reports for a TSC of tsc_hz: tsc_hz itself below 4.29 GHz (ECX
 * is 32 bits), else tsc_hz / *ratio with the TSC/crystal ratio in *ratio (may be NULL).  Linux
 * runs the APIC timer's one-shot and periodic modes at this rate (lapic_timer_period =
 * crystal_khz * 1000 / HZ in native_calibrate_tsc), so the vLAPIC's timer counts at it too. */
uint32_t cpuid_policy_crystal_hz(uint64_t tsc_hz, uint32_t *ratio);

/* Turns the real CPU's answer `r` for (leaf, subleaf) into the Linux guest's.  The hypervisor
 * range is not handled here (the caller answers its own signature). */
void cpuid_policy_linux(const struct cpuid_policy *p, uint32_t leaf, uint32_t subleaf,
                        struct cpuid_regs *r);

#endif
