/* The CPUID policy for Linux guests (vmm/vcpu/cpuid_policy.c), fed what Bochs's
 * corei7_skylake_x (and a full-featured host) answer, checked against what Linux 6.1 reads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "vmm/vcpu/cpuid_policy.h"

#define B(n) (1u << (n))

static const struct cpuid_policy pol = { 2000000000ULL, 0x16, 0x80000008, 0, 1 };
static const struct cpuid_regs ones = { 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF };

static struct cpuid_regs ask(const struct cpuid_policy *p, uint32_t leaf, uint32_t sub,
                             struct cpuid_regs r)
{
    cpuid_policy_linux(p, cpuid_policy_source_leaf(p, leaf), sub, &r);
    return r;
}

static void test_leaf0_max(void **state)
{
    struct cpuid_regs r = ask(&pol, 0, 0,
                              (struct cpuid_regs){ 0x1B, 0x756E6547, 0x6C65746E, 0x49656E69 });
    assert_int_equal(r.eax, 0x16);
    assert_int_equal(r.ebx, 0x756E6547); /* "GenuineIntel" stays */
    assert_int_equal(r.edx, 0x49656E69);
    assert_int_equal(r.ecx, 0x6C65746E);
}

static void test_leaf1(void **state)
{
    struct cpuid_regs r = ask(&pol, 1, 0,
                              (struct cpuid_regs){ 0x50654, 0x12345678, 0xFFFFFFFF, 0xFFFFFFFF });
    assert_int_equal(r.eax, 0x50654);    /* family/model/stepping */
    assert_int_equal(r.ebx, 0x00015678); /* APIC id 0, one logical cpu */
    const uint32_t ecx_hidden[] = { 3, 5, 6, 7, 8, 12, 15, 18, 26, 27, 28, 29 };
    for (size_t i = 0; i < sizeof ecx_hidden / sizeof ecx_hidden[0]; i++)
        if (r.ecx & B(ecx_hidden[i]))
            fail_msg("CPUID.1:ECX bit %u is shown", ecx_hidden[i]);
    assert_true(r.ecx & B(21)); /* x2APIC */
    assert_true(r.ecx & B(24)); /* TSC deadline */
    assert_true(r.ecx & B(31)); /* hypervisor */
    assert_true(r.ecx & B(0) && r.ecx & B(19) && r.ecx & B(20) && r.ecx & B(23));
    const uint32_t edx_hidden[] = { 7, 14, 18, 21, 22, 28, 29, 31 };
    for (size_t i = 0; i < sizeof edx_hidden / sizeof edx_hidden[0]; i++)
        if (r.edx & B(edx_hidden[i]))
            fail_msg("CPUID.1:EDX bit %u is shown", edx_hidden[i]);
    assert_true(r.edx & B(12) && r.edx & B(16) && r.edx & B(9) && r.edx & B(24) && r.edx & B(26));
    /* x2APIC, TSC deadline and HYPERVISOR are given even where the CPU lacks them */
    r = ask(&pol, 1, 0, (struct cpuid_regs){ 0x50654, 0, 0, 0 });
    assert_int_equal(r.ecx, B(21) | B(24) | B(31));
    assert_int_equal(r.ebx, 1u << 16);
}

static void test_power_and_timers(void **state)
{
    struct cpuid_regs r = ask(&pol, 6, 0, ones);
    assert_int_equal(r.eax, B(2)); /* ARAT only */
    assert_int_equal(r.ebx | r.ecx | r.edx, 0);
    r = ask(&pol, 5, 0, ones);
    assert_int_equal(r.eax | r.ebx | r.ecx | r.edx, 0); /* no MONITOR/MWAIT */
    const uint32_t zeroed[] = { 3, 8, 9, 0xA, 0xC, 0xD, 0xE, 0xF, 0x10, 0x12, 0x14 };
    for (size_t i = 0; i < sizeof zeroed / sizeof zeroed[0]; i++) {
        r = ask(&pol, zeroed[i], 0, ones);
        if (r.eax | r.ebx | r.ecx | r.edx)
            fail_msg("leaf %#x is not zero", zeroed[i]);
    }
}

static void test_tsc_leaves(void **state)
{
    struct cpuid_regs r = ask(&pol, 0x15, 0,
                              (struct cpuid_regs){ 2, 0x124, 0, 0 }); /* Bochs' own */
    /* Linux: tsc_khz = ECX / 1000 * EBX / EAX */
    assert_int_not_equal(r.eax, 0);
    assert_int_equal((uint64_t)r.ecx / 1000 * r.ebx / r.eax, 2000000);
    assert_int_equal(r.ecx, cpuid_policy_crystal_hz(pol.tsc_hz, NULL));
    r = ask(&pol, 0x16, 0, (struct cpuid_regs){ 3500, 3500, 100, 0 });
    assert_int_equal(r.eax, 2000);
    assert_int_equal(r.ebx, 2000);
    assert_int_equal(r.ecx, 100);
    /* a TSC above 4.29 GHz: ECX still holds the crystal, the ratio makes up the rest */
    struct cpuid_policy fast = pol;
    fast.tsc_hz = 5000000000ULL;
    r = ask(&fast, 0x15, 0, ones);
    assert_int_equal(r.ebx, 2);
    assert_int_equal((uint64_t)r.ecx * r.ebx / r.eax, 5000000000ULL);
    uint32_t ratio;
    assert_int_equal(cpuid_policy_crystal_hz(fast.tsc_hz, &ratio), 2500000000u);
    assert_int_equal(ratio, 2);
    /* an uncalibrated TSC: nothing rather than a wrong rate */
    struct cpuid_policy none = pol;
    none.tsc_hz = 0;
    r = ask(&none, 0x15, 0, ones);
    assert_int_equal(r.eax | r.ebx | r.ecx | r.edx, 0);
    /* a CPU whose maximum leaf is below 0x15 still gets both */
    struct cpuid_policy old = pol;
    old.host_max_basic = 0xD;
    r = ask(&old, 0x16, 0, ones);
    assert_int_equal(r.eax, 2000);
    r = ask(&old, 0x7, 0, ones);
    assert_int_not_equal(r.ebx, 0); /* 7 <= 0xD: the real leaf, filtered */
    r = ask(&old, 0x4, 0, ones);    /* 4 <= 0xD */
    assert_int_equal(r.eax & 0xFFFFC000u, 0);
}

static void test_structured_features(void **state)
{
    struct cpuid_regs r = ask(&pol, 7, 0, ones);
    assert_int_equal(r.eax, 0); /* no subleaf 1 */
    assert_int_equal(r.ecx, 0); /* no LA57, PKU, RDPID, ... */
    assert_int_equal(r.edx, 0); /* no SPEC_CTRL, ARCH_CAPABILITIES, ... */
    const uint32_t hidden[] = {
        1, 2, 4, 5, 10, 11, 12, 14, 15, 16, 17, 21, 25, 26, 27, 28, 30, 31
    };
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
        if (r.ebx & B(hidden[i]))
            fail_msg("CPUID.7:EBX bit %u is shown", hidden[i]);
    assert_true(r.ebx & B(0) && r.ebx & B(7) && r.ebx & B(20)); /* FSGSBASE, SMEP, SMAP */
    r = ask(&pol, 7, 1, ones);
    assert_int_equal(r.eax | r.ebx | r.ecx | r.edx, 0);
}

static void test_topology(void **state)
{
    struct cpuid_regs r = ask(&pol, 0xB, 0, ones);
    assert_int_equal(r.ebx, 1);
    assert_int_equal((r.ecx >> 8) & 0xFF, 1); /* SMT level */
    assert_int_equal(r.edx, 0);               /* x2APIC id */
    r = ask(&pol, 0xB, 1, ones);
    assert_int_equal(r.ebx, 1);
    assert_int_equal((r.ecx >> 8) & 0xFF, 2); /* core level */
    r = ask(&pol, 0xB, 2, ones);
    assert_int_equal(r.ebx, 0);
    assert_int_equal((r.ecx >> 8) & 0xFF, 0); /* invalid: the end */
    assert_int_equal(r.ecx & 0xFF, 2);
    r = ask(&pol, 4, 1, (struct cpuid_regs){ 0xFC004122, 0x01C0003F, 0x3F, 0 });
    assert_int_equal(r.eax, 0x00000122);
    assert_int_equal(r.ebx, 0x01C0003F);
}

/* vCPU 2 of a guest with 3: its ID at every level, 3 cores taking 2 ID bits, one package. */
static void test_topology_of_a_second_vcpu(void **state)
{
    struct cpuid_policy p = pol;
    p.apic_id = 2;
    p.cpus = 3;
    struct cpuid_regs r = ask(&p, 1, 0, (struct cpuid_regs){ 0x50654, 0x12345678, 0, 0 });
    assert_int_equal(r.ebx, 0x02035678); /* initial APIC ID 2, 3 logical processors */
    assert_false(r.edx & B(28));         /* still no HTT */
    r = ask(&p, 0xB, 0, ones);
    assert_int_equal(r.eax, 0);
    assert_int_equal(r.ebx, 1);
    assert_int_equal(r.edx, 2);
    r = ask(&p, 0xB, 1, ones);
    assert_int_equal(r.eax, 2);
    assert_int_equal(r.ebx, 3);
    assert_int_equal(r.edx, 2);
    r = ask(&p, 0xB, 2, ones);
    assert_int_equal(r.edx, 2);
    r = ask(&p, 4, 1, (struct cpuid_regs){ 0xFC004122, 0x01C0003F, 0x3F, 0 });
    assert_int_equal(r.eax, 0x08000122); /* cores per package - 1 = 2 */
    p.cpus = 4;
    assert_int_equal(ask(&p, 0xB, 1, ones).eax, 2);
    p.cpus = 5;
    assert_int_equal(ask(&p, 0xB, 1, ones).eax, 3);
}

static void test_above_maximum(void **state)
{
    /* basic leaves above 0x16 answer as 0x16 does (SDM), even on a CPU with more */
    struct cpuid_policy big = pol;
    big.host_max_basic = 0x20;
    assert_int_equal(cpuid_policy_source_leaf(&big, 0x1F), 0x16);
    assert_int_equal(cpuid_policy_source_leaf(&big, 0x17), 0x16);
    assert_int_equal(cpuid_policy_source_leaf(&big, 0x16), 0x16);
    assert_int_equal(cpuid_policy_source_leaf(&big, 0x40000000), 0x40000000);
    struct cpuid_regs r = ask(&big, 0x1F, 0, ones);
    assert_int_equal(r.eax, 2000);
    /* extended leaves above 0x80000008 likewise */
    assert_int_equal(cpuid_policy_source_leaf(&big, 0x80000021), 0x16);
    struct cpuid_policy small = pol;
    small.host_max_ext = 0x80000004;
    assert_int_equal(cpuid_policy_source_leaf(&small, 0x80000008), 0x16);
    r = ask(&small, 0x80000000, 0, ones);
    assert_int_equal(r.eax, 0x80000004);
}

static void test_extended(void **state)
{
    struct cpuid_regs r = ask(&pol, 0x80000000, 0, (struct cpuid_regs){ 0x80000008, 1, 2, 3 });
    assert_int_equal(r.eax, 0x80000008);
    r = ask(&pol, 0x80000001, 0, ones);
    assert_int_equal(r.edx & B(27), 0);                           /* no RDTSCP */
    assert_true(r.edx & B(29) && r.edx & B(20) && r.edx & B(11)); /* LM, NX, SYSCALL */
    assert_int_equal(r.ecx, B(0) | B(5) | B(8));
    r = ask(&pol, 0x80000007, 0, ones);
    assert_int_equal(r.edx, B(8)); /* invariant TSC only */
    assert_int_equal(r.eax | r.ebx | r.ecx, 0);
    r = ask(&pol, 0x80000008, 0, (struct cpuid_regs){ 0x3027, 0x200, 7, 9 });
    assert_int_equal(r.eax, 0x3027);
    assert_int_equal(r.ebx | r.ecx | r.edx, 0);
    r = ask(&pol, 0x80000002, 0, (struct cpuid_regs){ 0x65746E49, 1, 2, 3 });
    assert_int_equal(r.eax, 0x65746E49); /* brand string passes */
    r = ask(&pol, 0x80000005, 0, ones);
    assert_int_equal(r.eax | r.ebx | r.ecx | r.edx, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leaf0_max),
        cmocka_unit_test(test_leaf1),
        cmocka_unit_test(test_power_and_timers),
        cmocka_unit_test(test_tsc_leaves),
        cmocka_unit_test(test_structured_features),
        cmocka_unit_test(test_topology),
        cmocka_unit_test(test_above_maximum),
        cmocka_unit_test(test_extended),
        cmocka_unit_test(test_topology_of_a_second_vcpu),
    };
    return cmocka_run_group_tests_name("loader_cpuid", tests, NULL, NULL);
}
