/* The CPUID a Linux guest sees (cpuid_policy.h).  Allow-lists, not deny-lists: a feature bit the
 * real CPU adds later stays hidden until someone decides the guest may have it.  Bit numbers
 * from Intel SDM Vol. 2A "CPUID" (Tables 3-8, 3-10, 3-11 and the leaf 07H, 0BH, 15H, 16H,
 * 80000001H, 80000007H descriptions). */
#include "vmm/vcpu/cpuid_policy.h"

#include <stdbool.h>

#define BIT(n) (1u << (n))

/* Leaf 1 ECX (Table 3-10): SSE3, PCLMULQDQ, SSSE3, CMPXCHG16B, PCID, SSE4.1, SSE4.2, x2APIC,
 * MOVBE, POPCNT, TSC-deadline, AESNI, RDRAND.  Hidden among others: MONITOR (no MWAIT), VMX
 * and SMX (no nesting), EST/TM2/PDCM/DTES64/DS-CPL/xTPR (power and debug-store MSRs), DCA,
 * XSAVE/OSXSAVE/AVX/FMA/F16C (the hypervisor keeps guest state with FXSAVE: Linux then says
 * "x87 FPU will use FXSAVE"). */
#define LEAF1_ECX_ALLOWED \
    (BIT(0) | BIT(1) | BIT(9) | BIT(13) | BIT(17) | BIT(19) | BIT(20) | BIT(21) | BIT(22) | \
     BIT(23) | BIT(24) | BIT(25) | BIT(30))
/* Leaf 1 EDX (Table 3-11): FPU, VME, DE, PSE, TSC, MSR, PAE, CX8, APIC, SEP, MTRR, PGE, CMOV,
 * PAT, PSE-36, CLFSH, MMX, FXSR, SSE, SSE2, SS.  Hidden: MCE/MCA (Linux's mcheck_cpu_init
 * would read MCG_CAP unchecked), PSN, DS, ACPI (thermal MSRs), HTT, TM, PBE. */
#define LEAF1_EDX_ALLOWED \
    (BIT(0) | BIT(1) | BIT(2) | BIT(3) | BIT(4) | BIT(5) | BIT(6) | BIT(8) | BIT(9) | BIT(11) | \
     BIT(12) | BIT(13) | BIT(15) | BIT(16) | BIT(17) | BIT(19) | BIT(23) | BIT(24) | BIT(25) | \
     BIT(26) | BIT(27))
#define LEAF1_EBX_KEEP          0x0000FFFFu /* brand index, CLFLUSH line size */
#define LEAF1_EBX_LOGICAL_SHIFT 16          /* logical processors per package, 8 bits */
#define LEAF1_EBX_LOGICAL_MASK  0xFFu
#define LEAF1_EBX_APIC_ID_SHIFT 24 /* initial APIC ID */
/* Leaf 4 EAX bits 31:26 (cores per package - 1) and 25:14 (threads sharing the cache - 1). */
#define LEAF4_EAX_TOPOLOGY    0xFFFFC000u
#define LEAF4_EAX_CORES_SHIFT 26
/* Leaf 6 EAX bit 2: the APIC timer runs in deep C-states; Linux's apic_needs_pit() wants it. */
#define LEAF6_EAX_ARAT BIT(2)
/* Leaf 7.0 EBX: FSGSBASE, BMI1, SMEP, BMI2, ERMS, RDSEED, ADX, SMAP, CLFLUSHOPT, CLWB, SHA.
 * Hidden: TSC_ADJUST, SGX, HLE/RTM, AVX2/AVX-512 (no XSAVE), INVPCID (not enabled in VMX: #UD),
 * RDT, MPX, PT.  ECX and EDX are hidden whole: LA57 (the decompressor would switch to 5-level
 * paging), PKU (no XSAVE), WAITPKG, RDPID (no TSC_AUX), CET, and the speculation-control and
 * ARCH_CAPABILITIES bits whose MSRs Linux reads unchecked. */
#define LEAF7_EBX_ALLOWED \
    (BIT(0) | BIT(3) | BIT(7) | BIT(8) | BIT(9) | BIT(18) | BIT(19) | BIT(20) | BIT(23) | \
     BIT(24) | BIT(29))
/* Leaf 0BH (extended topology): level types in ECX bits 15:8. */
#define LEAFB_TYPE_SHIFT 8
#define LEAFB_TYPE_SMT   1u
#define LEAFB_TYPE_CORE  2u
/* Leaf 16H ECX: the bus (reference) clock in MHz. */
#define LEAF16_BUS_MHZ 100u
/* 80000001H EDX: SYSCALL, NX, 1-GByte pages, LM (RDTSCP hidden: the vDSO would use it and
 * RDTSCP is not enabled in VMX); ECX: LAHF/SAHF, LZCNT, PREFETCHW. */
#define EXT1_EDX_ALLOWED (BIT(11) | BIT(20) | BIT(26) | BIT(29))
#define EXT1_ECX_ALLOWED (BIT(0) | BIT(5) | BIT(8))
/* 80000007H EDX bit 8: invariant TSC (Linux: CONSTANT_TSC and NONSTOP_TSC). */
#define EXT7_EDX_INVARIANT_TSC BIT(8)
#define CPUID_LINUX_MAX_EXT    CPUID_ADDR_SIZES
#define HZ_PER_MHZ             1000000u

/* Leaf 0BH EAX at the core level: the x2APIC ID bits the cores take, so that every vCPU's ID
 * shifted right by it gives the package (0). */
static uint32_t core_id_bits(uint32_t cpus)
{
    uint32_t bits = 0;
    while (bits < 31 && (1u << bits) < cpus)
        bits++;
    return bits;
}

static uint32_t cpus_of(const struct cpuid_policy *p)
{
    return p->cpus ? p->cpus : 1;
}

static uint32_t max_ext(const struct cpuid_policy *p)
{
    return p->host_max_ext < CPUID_LINUX_MAX_EXT ? p->host_max_ext : CPUID_LINUX_MAX_EXT;
}

uint32_t cpuid_policy_source_leaf(const struct cpuid_policy *p, uint32_t leaf)
{
    if (leaf > CPUID_LINUX_MAX_BASIC && leaf < CPUID_HV_FIRST)
        return CPUID_LINUX_MAX_BASIC;
    if (leaf > CPUID_HV_LAST && leaf != CPUID_EXT_FIRST &&
        (leaf < CPUID_EXT_FIRST || leaf > max_ext(p)))
        return CPUID_LINUX_MAX_BASIC;
    return leaf;
}

uint32_t cpuid_policy_crystal_hz(uint64_t tsc_hz, uint32_t *ratio)
{
    uint64_t n = tsc_hz / ((uint64_t)UINT32_MAX + 1) + 1; /* the crystal must fit ECX */
    if (ratio)
        *ratio = (uint32_t)n;
    return (uint32_t)(tsc_hz / n);
}

static void zero(struct cpuid_regs *r)
{
    *r = (struct cpuid_regs){ 0, 0, 0, 0 };
}

static void extended(const struct cpuid_policy *p, uint32_t leaf, struct cpuid_regs *r)
{
    uint32_t max = max_ext(p);
    if (leaf > max && leaf != CPUID_EXT_FIRST) {
        zero(r);
        return;
    }
    switch (leaf) {
    case CPUID_EXT_FIRST:
        *r = (struct cpuid_regs){ max, 0, 0, 0 };
        break;
    case 0x80000001:
        r->eax = r->ebx = 0;
        r->ecx &= EXT1_ECX_ALLOWED;
        r->edx &= EXT1_EDX_ALLOWED;
        break;
    case 0x80000002:
    case 0x80000003:
    case 0x80000004: /* brand string */
    case 0x80000006: /* L2 cache */
        break;
    case 0x80000007:
        *r = (struct cpuid_regs){ 0, 0, 0, r->edx & EXT7_EDX_INVARIANT_TSC };
        break;
    case CPUID_ADDR_SIZES: /* address sizes in EAX only */
        *r = (struct cpuid_regs){ r->eax, 0, 0, 0 };
        break;
    default:
        zero(r);
    }
}

void cpuid_policy_linux(const struct cpuid_policy *p, uint32_t leaf, uint32_t subleaf,
                        struct cpuid_regs *r)
{
    if (leaf >= CPUID_EXT_FIRST) {
        extended(p, leaf, r);
        return;
    }
    bool real = leaf <= p->host_max_basic; /* r holds this leaf's data, not another's */
    uint32_t ratio;
    switch (leaf) {
    case 0x0:
        r->eax = CPUID_LINUX_MAX_BASIC; /* vendor string in EBX, EDX, ECX stays */
        break;
    case 0x1:
        /* EBX[23:16] counts for Linux only with HTT (hidden); leaf 0BH tells the topology. */
        r->ebx = (r->ebx & LEAF1_EBX_KEEP) |
                 (cpus_of(p) & LEAF1_EBX_LOGICAL_MASK) << LEAF1_EBX_LOGICAL_SHIFT |
                 p->apic_id << LEAF1_EBX_APIC_ID_SHIFT;
        /* HYPERVISOR also turns off Linux's microcode loader and TSC-deadline errata check. */
        r->ecx = (r->ecx & LEAF1_ECX_ALLOWED) |
                 (uint32_t)(CPUID_1_ECX_X2APIC | CPUID_1_ECX_TSC_DEADLINE | CPUID_1_ECX_HYPERVISOR);
        r->edx &= LEAF1_EDX_ALLOWED;
        break;
    case 0x2: /* cache and TLB descriptors */
        if (!real)
            zero(r);
        break;
    case 0x4: /* caches: the package's cores, one thread sharing each */
        if (real)
            r->eax = (r->eax & ~LEAF4_EAX_TOPOLOGY) | (cpus_of(p) - 1u) << LEAF4_EAX_CORES_SHIFT;
        else
            zero(r);
        break;
    case 0x6:
        *r = (struct cpuid_regs){ LEAF6_EAX_ARAT, 0, 0, 0 };
        break;
    case 0x7:
        if (real && subleaf == 0)
            *r = (struct cpuid_regs){ 0, r->ebx & LEAF7_EBX_ALLOWED, 0, 0 };
        else
            zero(r);
        break;
    case 0xB: /* one thread per core, `cpus` cores; EDX: the asker's x2APIC ID at every level */
        if (subleaf == 0)
            *r = (struct cpuid_regs){ 0, 1, LEAFB_TYPE_SMT << LEAFB_TYPE_SHIFT, p->apic_id };
        else if (subleaf == 1)
            *r = (struct cpuid_regs){ core_id_bits(cpus_of(p)), cpus_of(p),
                                      1u | LEAFB_TYPE_CORE << LEAFB_TYPE_SHIFT, p->apic_id };
        else
            *r = (struct cpuid_regs){ 0, 0, subleaf & 0xFF, p->apic_id };
        break;
    case 0x15: /* TSC = crystal (ECX) * EBX / EAX */
        if (p->tsc_hz) {
            uint32_t crystal = cpuid_policy_crystal_hz(p->tsc_hz, &ratio);
            *r = (struct cpuid_regs){ 1, ratio, crystal, 0 };
        } else {
            zero(r);
        }
        break;
    case 0x16: /* base and maximum MHz, bus MHz */
        *r = (struct cpuid_regs){ (uint32_t)(p->tsc_hz / HZ_PER_MHZ),
                                  (uint32_t)(p->tsc_hz / HZ_PER_MHZ),
                                  p->tsc_hz ? LEAF16_BUS_MHZ : 0, 0 };
        break;
    default:
        /* 3 (PSN), 5 (MONITOR), 8-0xA (PMU), 0xC-0x14 (XSAVE, RDT, SGX, PT) and the rest. */
        zero(r);
    }
}
