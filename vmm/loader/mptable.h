/* An MP table (Intel MultiProcessor Specification 1.4, chapter 4 "MP Configuration Table"): the
 * floating pointer (§4.1) and a configuration table (§4.2) with a processor entry per vCPU
 * (§4.3.1; APIC IDs 0..n-1, the first the bootstrap processor), one ISA bus (§4.3.2) and the local-interrupt wiring of a PC in virtual-wire mode
 * (§4.3.5, §3.6.2.2: ExtINT on LINT0, NMI on LINT1).  No I/O APIC entry: Linux then runs the
 * 8259 through LINT0, and with `noapic` keeps x2APIC (docs/vdev.md).  Pure.
 *
 * Linux finds the floating pointer by scanning the last KiB below 640 KiB
 * (arch/x86/kernel/mpparse.c smp_scan_config) and checks both checksums (mpf_checksum,
 * smp_check_mpc). */
#ifndef TESSERA_VMM_LOADER_MPTABLE_H
#define TESSERA_VMM_LOADER_MPTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "arch/x86/apic_regs.h"

#define MP_FLOATING_SIGNATURE  "_MP_"
#define MP_CONFIG_SIGNATURE    "PCMP"
#define MP_SPEC_REV_1_4        4u
#define MP_FLOATING_BYTES      16u /* length field 1: one 16-byte paragraph */
#define MP_CONFIG_HEADER_BYTES 44u
#define MP_ENTRY_PROCESSOR     0u /* entry types, §4.3 Table 4-3 */
#define MP_ENTRY_BUS           1u
#define MP_ENTRY_LOCAL_INT     4u
#define MP_PROCESSOR_BYTES     20u
#define MP_BUS_BYTES           8u
#define MP_LOCAL_INT_BYTES     8u
#define MP_CPU_ENABLED         0x01u /* CPU flags, §4.3.1 */
#define MP_CPU_BOOTSTRAP       0x02u
#define MP_INT_NMI             1u /* interrupt types, §4.3.4 Table 4-10 */
#define MP_INT_EXTINT          3u
#define MP_ALL_LOCAL_APICS     0xFFu /* destination: every local APIC */
#define MP_BUS_TYPE_ISA        "ISA   "

/* The local APIC version the processor entry gives: the vLAPIC's (VERSION bits 7:0). */
#define MPTABLE_LAPIC_VERSION LAPIC_VERSION_INTEGRATED

/* Size of the table mptable_build writes for n processors. */
#define MPTABLE_BYTES(n) \
    (MP_FLOATING_BYTES + MP_CONFIG_HEADER_BYTES + (n)*MP_PROCESSOR_BYTES + MP_BUS_BYTES + \
     2 * MP_LOCAL_INT_BYTES)
#define MPTABLE_MAX_CPUS 16u

struct mptable_cpu {
    uint8_t count;       /* processors, 1..MPTABLE_MAX_CPUS */
    uint32_t signature;  /* CPUID.1:EAX as the guest sees it */
    uint32_t features;   /* CPUID.1:EDX as the guest sees it */
    uint32_t lapic_base; /* physical address of the local APIC page */
};

/* Writes the floating pointer at buf (which the guest will see at guest-physical `gpa`) and the
 * configuration table right after it.  Returns the bytes written, or 0 if `len` is too small,
 * the table would not be addressable in 32 bits or the count is outside 1..MPTABLE_MAX_CPUS. */
size_t mptable_build(uint8_t *buf, size_t len, uint64_t gpa, const struct mptable_cpu *cpu);

/* The MP spec's checksum: the byte that makes the bytes of a structure sum to 0 (mod 256). */
uint8_t mptable_checksum(const uint8_t *p, size_t len);

#endif
