/* VMX control negotiation (arch/x86/vmx/pure/controls.c) against capability MSR values, most of
 * them the ones Bochs 2.7 reports with cpu model corei7_skylake_x, plus the CR0/CR4 fixed bits
 * and the SDM control names used in messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "arch/x86/regs.h"
#include "arch/x86/vmx/pure/controls.h"
#include "arch/x86/vmx_controls.h"

/* Measured in Bochs 2.7, cpu: model=corei7_skylake_x (IA32_VMX_* MSRs 0x480..0x491). */
#define BOCHS_BASIC          0x00d810000000002bULL
#define BOCHS_PINBASED       0x0000007f00000016ULL
#define BOCHS_PROCBASED      0xf7f9fffe0401e172ULL
#define BOCHS_EXIT           0x007fffff00036dffULL
#define BOCHS_ENTRY          0x0000ffff000011ffULL
#define BOCHS_CR0_FIXED0     0x0000000080000021ULL
#define BOCHS_CR0_FIXED1     0x00000000ffffffffULL
#define BOCHS_CR4_FIXED0     0x0000000000002000ULL
#define BOCHS_CR4_FIXED1     0x00000000003727ffULL
#define BOCHS_PROCBASED2     0x02177fff00000000ULL
#define BOCHS_TRUE_PINBASED  0x0000007f00000016ULL
#define BOCHS_TRUE_PROCBASED 0xf7f9fffe04006172ULL
#define BOCHS_TRUE_EXIT      0x007fffff00036dfbULL
#define BOCHS_TRUE_ENTRY     0x0000ffff000011fbULL

/* Bit positions from the SDM tables, as test vectors for the controls the lead's header does
 * not name (yet); each is checked against the name table below. */
#define T_PIN_POSTED_INTERRUPTS   (1u << 7)
#define T_PROC_CR3_LOAD_EXITING   (1u << 15)
#define T_PROC_CR3_STORE_EXITING  (1u << 16)
#define T_PROC_MONITOR_TRAP_FLAG  (1u << 27)
#define T_PROC2_ENCLS_EXITING     (1u << 15)
#define T_PROC2_CONCEAL_VMX_PT    (1u << 19)
#define T_EXIT_SAVE_DEBUG         (1u << 2)
#define T_EXIT_HOST_AS_SIZE       (1u << 9)
#define T_EXIT_LOAD_EFER          (1u << 21)
#define T_EXIT_SAVE_PREEMPT_TIMER (1u << 22)
#define T_EXIT_CLEAR_BNDCFGS      (1u << 23)
#define T_ENTRY_IA32E_GUEST       (1u << 9)
#define T_ENTRY_LOAD_EFER         (1u << 15)
#define T_ENTRY_LOAD_BNDCFGS      (1u << 16)
#define CR0_ET_TEST               (1ULL << 4) /* CR0.ET, SDM Vol. 3A §2.5 */

static void test_bochs_basic_says_true_controls(void **state)
{
    (void)state;
    /* cppcheck-suppress compareValueOutOfTypeRangeError ; the expression is unsigned long long */
    assert_true((BOCHS_BASIC & VMX_BASIC_TRUE_CTLS) != 0);
    assert_int_equal((uint32_t)BOCHS_BASIC & VMX_BASIC_REVISION_MASK, 0x2b);
    /* Bochs reports the same pin-based settings in both MSRs. */
    assert_true(BOCHS_PINBASED == BOCHS_TRUE_PINBASED);
}

/* The set Tessera wants: EPT + unrestricted guest + VPID. */
static void test_proc2_ept_ug_vpid(void **state)
{
    (void)state;
    uint32_t out = 0xdeadbeef, missing = 0xdeadbeef;
    uint32_t req = PROC2_ENABLE_EPT | PROC2_ENABLE_VPID | PROC2_UNRESTRICTED_GUEST;
    assert_int_equal(vmx_ctl_negotiate(BOCHS_PROCBASED2, req, 0, &out, &missing), 0);
    assert_int_equal(missing, 0);
    assert_int_equal(out, req); /* no secondary control must be 1 on Bochs */
    assert_true(vmx_ctl_value_ok(BOCHS_PROCBASED2, out));
}

static void test_proc_true_vs_legacy(void **state)
{
    (void)state;
    uint32_t req = PROC_HLT_EXITING | PROC_USE_MSR_BITMAPS | PROC_ACTIVATE_SECONDARY;
    uint32_t out, missing;
    assert_int_equal(vmx_ctl_negotiate(BOCHS_TRUE_PROCBASED, req, 0, &out, &missing), 0);
    assert_int_equal(out, 0x04006172u | req);
    assert_int_equal(missing, 0);
    /* The TRUE MSR lets CR3-load/store exiting be 0; the legacy one forces them to 1. */
    assert_int_equal(out & (T_PROC_CR3_LOAD_EXITING | T_PROC_CR3_STORE_EXITING), 0);
    assert_int_equal(vmx_ctl_negotiate(BOCHS_PROCBASED, req, 0, &out, &missing), 0);
    assert_int_equal(out, 0x0401e172u | req);
    assert_int_equal(out & (T_PROC_CR3_LOAD_EXITING | T_PROC_CR3_STORE_EXITING),
                     T_PROC_CR3_LOAD_EXITING | T_PROC_CR3_STORE_EXITING);
}

/* Bochs lacks "monitor trap flag" (bit 27 of the allowed-1 settings is 0). */
static void test_proc_required_missing(void **state)
{
    (void)state;
    uint32_t out, missing;
    uint32_t req = PROC_HLT_EXITING | T_PROC_MONITOR_TRAP_FLAG;
    assert_int_equal(vmx_ctl_negotiate(BOCHS_TRUE_PROCBASED, req, 0, &out, &missing), -1);
    assert_int_equal(missing, T_PROC_MONITOR_TRAP_FLAG);
    /* *out is still the best valid value: everything but the missing bit. */
    assert_int_equal(out, 0x04006172u | PROC_HLT_EXITING);
    assert_true(vmx_ctl_value_ok(BOCHS_TRUE_PROCBASED, out));
    /* As an optional control the same bit is simply left out. */
    assert_int_equal(vmx_ctl_negotiate(BOCHS_TRUE_PROCBASED, PROC_HLT_EXITING,
                                       T_PROC_MONITOR_TRAP_FLAG, &out, &missing),
                     0);
    assert_int_equal(out, 0x04006172u | PROC_HLT_EXITING);
    assert_int_equal(missing, 0);
}

static void test_pin(void **state)
{
    (void)state;
    uint32_t out, missing;
    assert_int_equal(vmx_ctl_negotiate(BOCHS_TRUE_PINBASED,
                                       PIN_EXTERNAL_INTERRUPT_EXITING | PIN_NMI_EXITING |
                                           PIN_VMX_PREEMPTION_TIMER,
                                       PIN_VIRTUAL_NMIS, &out, &missing),
                     0);
    assert_int_equal(out, 0x16u | PIN_EXTERNAL_INTERRUPT_EXITING | PIN_NMI_EXITING |
                              PIN_VMX_PREEMPTION_TIMER | PIN_VIRTUAL_NMIS);
    /* Posted interrupts are not offered. */
    assert_int_equal(vmx_ctl_negotiate(BOCHS_TRUE_PINBASED, T_PIN_POSTED_INTERRUPTS, 0, &out,
                                       &missing),
                     -1);
    assert_int_equal(missing, T_PIN_POSTED_INTERRUPTS);
    assert_int_equal(out, 0x16u);
}

static void test_exit_and_entry(void **state)
{
    (void)state;
    uint32_t out, missing;
    uint32_t req = T_EXIT_HOST_AS_SIZE | T_EXIT_LOAD_EFER | T_EXIT_SAVE_PREEMPT_TIMER;
    assert_int_equal(vmx_ctl_negotiate(BOCHS_TRUE_EXIT, req, 0, &out, &missing), 0);
    assert_int_equal(out, 0x36dfbu | req);
    /* "save debug controls" is a default-1 bit only in the legacy MSR. */
    assert_int_equal(out & T_EXIT_SAVE_DEBUG, 0);
    assert_int_equal(vmx_ctl_negotiate(BOCHS_EXIT, req, 0, &out, &missing), 0);
    assert_int_equal(out & T_EXIT_SAVE_DEBUG, T_EXIT_SAVE_DEBUG);
    assert_int_equal(vmx_ctl_negotiate(BOCHS_TRUE_EXIT, req | T_EXIT_CLEAR_BNDCFGS, 0, &out,
                                       &missing),
                     -1);
    assert_int_equal(missing, T_EXIT_CLEAR_BNDCFGS);

    req = T_ENTRY_IA32E_GUEST | T_ENTRY_LOAD_EFER;
    assert_int_equal(vmx_ctl_negotiate(BOCHS_TRUE_ENTRY, req, 0, &out, &missing), 0);
    assert_int_equal(out, 0x11fbu | req);
    assert_int_equal(vmx_ctl_negotiate(BOCHS_TRUE_ENTRY, req | T_ENTRY_LOAD_BNDCFGS, 0, &out,
                                       &missing),
                     -1);
    assert_int_equal(missing, T_ENTRY_LOAD_BNDCFGS);
}

static void test_several_missing(void **state)
{
    (void)state;
    uint32_t out, missing;
    uint32_t req = PROC2_ENABLE_EPT | T_PROC2_ENCLS_EXITING | T_PROC2_CONCEAL_VMX_PT;
    assert_int_equal(vmx_ctl_negotiate(BOCHS_PROCBASED2, req, 0, &out, &missing), -1);
    assert_int_equal(missing, T_PROC2_ENCLS_EXITING | T_PROC2_CONCEAL_VMX_PT);
    assert_int_equal(out, PROC2_ENABLE_EPT);
}

/* A bit that must be 1 but may not be 1: no value works, whatever is asked. */
static void test_contradictory_msr(void **state)
{
    (void)state;
    uint32_t out, missing;
    uint64_t cap = ((uint64_t)0x000000F0 << 32) | 0x00000101;
    assert_int_equal(vmx_ctl_negotiate(cap, 0, 0, &out, &missing), -1);
    assert_int_equal(missing, 0x101);
    assert_int_equal(vmx_ctl_negotiate(cap, 0x10, 0, &out, NULL), -1);
}

static void test_null_out_and_missing(void **state)
{
    (void)state;
    uint32_t out, missing = 7;
    assert_int_equal(vmx_ctl_negotiate(BOCHS_PROCBASED2, PROC2_ENABLE_EPT, 0, NULL, &missing), -1);
    assert_int_equal(missing, 0);
    assert_int_equal(vmx_ctl_negotiate(BOCHS_PROCBASED2, PROC2_ENABLE_EPT, 0, &out, NULL), 0);
    assert_int_equal(out, PROC2_ENABLE_EPT);
    assert_int_equal(vmx_ctl_negotiate(BOCHS_TRUE_PROCBASED, T_PROC_MONITOR_TRAP_FLAG, 0, &out,
                                       NULL),
                     -1);
}

/* The rules, over many pseudo-random capabilities and requests (a fixed-seed xorshift). */
static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void test_negotiation_rules_random(void **state)
{
    (void)state;
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    for (int n = 0; n < 20000; n++) {
        uint32_t may1 = (uint32_t)xorshift(&seed);
        uint32_t must1 = (uint32_t)xorshift(&seed) & may1;
        if (n % 7 == 0)
            must1 |= (uint32_t)xorshift(&seed) & (uint32_t)xorshift(&seed); /* maybe broken */
        uint64_t cap = ((uint64_t)may1 << 32) | must1;
        uint32_t req = (uint32_t)xorshift(&seed) & (uint32_t)xorshift(&seed);
        uint32_t opt = (uint32_t)xorshift(&seed);
        uint32_t out, missing;
        int rc = vmx_ctl_negotiate(cap, req, opt, &out, &missing);
        bool consistent = (must1 & ~may1) == 0;
        if (consistent) {
            assert_int_equal(rc, (req & ~may1) ? -1 : 0);
            assert_int_equal(missing, req & ~may1);
            assert_true(vmx_ctl_value_ok(cap, out));
            assert_int_equal(out & req, req & may1);         /* every possible wanted bit */
            assert_int_equal(out & ~(must1 | req | opt), 0); /* nothing unasked but must-1 */
            assert_int_equal(out & opt, opt & may1);
        } else {
            assert_int_equal(rc, -1);
            assert_int_equal(missing, must1 & ~may1);
        }
    }
}

static void test_fixed_bits_cr0(void **state)
{
    (void)state;
    uint64_t f0 = BOCHS_CR0_FIXED0, f1 = BOCHS_CR0_FIXED1;
    assert_int_equal(f0, CR0_PE | CR0_NE | CR0_PG);
    uint64_t cr0 = vmx_fixed_bits_apply(CR0_PE | CR0_ET_TEST, f0, f1);
    assert_int_equal(cr0, CR0_PE | CR0_NE | CR0_PG | CR0_ET_TEST);
    assert_true(vmx_fixed_bits_ok(cr0, f0, f1));
    assert_false(vmx_fixed_bits_ok(CR0_PE | CR0_PG, f0, f1)); /* NE missing */
    /* bits above 31 are 0 in FIXED1: cleared */
    assert_int_equal(vmx_fixed_bits_apply(1ULL << 32, f0, f1), f0);
    assert_false(vmx_fixed_bits_ok(f0 | (1ULL << 40), f0, f1));
    /* An unrestricted guest may run with paging and protection off. */
    uint64_t gf0 = vmx_guest_cr0_fixed0(f0, true);
    assert_int_equal(gf0, CR0_NE);
    assert_true(vmx_fixed_bits_ok(CR0_NE | CR0_ET_TEST, gf0, f1));
    assert_int_equal(vmx_guest_cr0_fixed0(f0, false), f0);
}

static void test_fixed_bits_cr4(void **state)
{
    (void)state;
    uint64_t f0 = BOCHS_CR4_FIXED0, f1 = BOCHS_CR4_FIXED1;
    assert_int_equal(f0, CR4_VMXE);
    assert_int_equal(vmx_fixed_bits_apply(CR4_PAE, f0, f1), CR4_PAE | CR4_VMXE);
    /* CR4 bit 22 (PKE) and bit 11 (UMIP) are not allowed by Bochs's FIXED1. */
    uint64_t bad = CR4_PAE | CR4_VMXE | (1ULL << 22) | (1ULL << 11);
    assert_false(vmx_fixed_bits_ok(bad, f0, f1));
    assert_int_equal(vmx_fixed_bits_apply(bad, f0, f1), CR4_PAE | CR4_VMXE);
    assert_true(vmx_fixed_bits_ok(CR4_PAE | CR4_VMXE | CR4_PGE, f0, f1));
    assert_false(vmx_fixed_bits_ok(CR4_PAE, f0, f1));
}

static void test_bit_names(void **state)
{
    (void)state;
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_PROC, 7), "HLT exiting");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_PROC, 27), "monitor trap flag");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_PROC, 31), "activate secondary controls");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_PROC2, 1), "enable EPT");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_PROC2, 5), "enable VPID");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_PROC2, 7), "unrestricted guest");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_PROC2, 15), "enable ENCLS exiting");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_PIN, 6), "activate VMX-preemption timer");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_PIN, 7), "process posted interrupts");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_EXIT, 9), "host address-space size");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_EXIT, 22), "save VMX-preemption timer value");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_EXIT, 23), "clear IA32_BNDCFGS");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_ENTRY, 9), "IA-32e mode guest");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_ENTRY, 15), "load IA32_EFER");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_ENTRY, 16), "load IA32_BNDCFGS");
    /* reserved (default-1) bits and out-of-range arguments */
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_PIN, 1), "(reserved)");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_PROC, 0), "(reserved)");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_ENTRY, 12), "(reserved)");
    assert_string_equal(vmx_ctl_bit_name(VMX_CTL_PROC, 32), "(reserved)");
    assert_string_equal(vmx_ctl_bit_name((enum vmx_ctl_kind)9, 1), "(reserved)");
    assert_string_equal(vmx_ctl_kind_name(VMX_CTL_EXIT), "VM-exit control");
    assert_string_equal(vmx_ctl_kind_name((enum vmx_ctl_kind)9), "(unknown)");
}

/* Every name the lead's mask header gives must be a named bit here (same SDM tables). */
static void test_names_cover_lead_masks(void **state)
{
    (void)state;
    const struct {
        enum vmx_ctl_kind k;
        uint32_t mask;
    } m[] = {
        { VMX_CTL_PIN, PIN_EXTERNAL_INTERRUPT_EXITING },
        { VMX_CTL_PIN, PIN_NMI_EXITING },
        { VMX_CTL_PIN, PIN_VIRTUAL_NMIS },
        { VMX_CTL_PIN, PIN_VMX_PREEMPTION_TIMER },
        { VMX_CTL_PROC, PROC_HLT_EXITING },
        { VMX_CTL_PROC, PROC_USE_IO_BITMAPS },
        { VMX_CTL_PROC, PROC_USE_MSR_BITMAPS },
        { VMX_CTL_PROC, PROC_ACTIVATE_SECONDARY },
        { VMX_CTL_PROC2, PROC2_ENABLE_EPT },
        { VMX_CTL_PROC2, PROC2_ENABLE_VPID },
        { VMX_CTL_PROC2, PROC2_UNRESTRICTED_GUEST },
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        unsigned bit = (unsigned)__builtin_ctz(m[i].mask);
        assert_string_not_equal(vmx_ctl_bit_name(m[i].k, bit), "(reserved)");
    }
}

static void test_describe_missing(void **state)
{
    (void)state;
    char buf[256];
    int n = vmx_ctl_describe_missing(VMX_CTL_PROC2, PROC2_ENABLE_EPT, buf, sizeof buf);
    assert_string_equal(buf, "required secondary processor-based VM-execution control "
                             "'enable EPT' is not supported");
    assert_int_equal(n, (int)strlen(buf));
    vmx_ctl_describe_missing(VMX_CTL_PROC2, T_PROC2_ENCLS_EXITING | T_PROC2_CONCEAL_VMX_PT, buf,
                             sizeof buf);
    assert_string_equal(buf, "required secondary processor-based VM-execution controls "
                             "'enable ENCLS exiting', 'conceal VMX from PT' are not supported");
    vmx_ctl_describe_missing(VMX_CTL_PROC2, 1u << 29, buf, sizeof buf);
    assert_string_equal(buf, "required secondary processor-based VM-execution control "
                             "reserved bit 29 is not supported");
    vmx_ctl_describe_missing(VMX_CTL_ENTRY, 0, buf, sizeof buf);
    assert_string_equal(buf, "every required VM-entry control is supported");
    /* Truncation: NUL-terminated, and the return value is the full length. */
    char small[16];
    int full = vmx_ctl_describe_missing(VMX_CTL_EXIT, T_EXIT_CLEAR_BNDCFGS, buf, sizeof buf);
    int cut = vmx_ctl_describe_missing(VMX_CTL_EXIT, T_EXIT_CLEAR_BNDCFGS, small, sizeof small);
    assert_int_equal(cut, full);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, buf, sizeof small - 1);
    assert_int_equal(vmx_ctl_describe_missing(VMX_CTL_EXIT, T_EXIT_CLEAR_BNDCFGS, NULL, 0), full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bochs_basic_says_true_controls),
        cmocka_unit_test(test_proc2_ept_ug_vpid),
        cmocka_unit_test(test_proc_true_vs_legacy),
        cmocka_unit_test(test_proc_required_missing),
        cmocka_unit_test(test_pin),
        cmocka_unit_test(test_exit_and_entry),
        cmocka_unit_test(test_several_missing),
        cmocka_unit_test(test_contradictory_msr),
        cmocka_unit_test(test_null_out_and_missing),
        cmocka_unit_test(test_negotiation_rules_random),
        cmocka_unit_test(test_fixed_bits_cr0),
        cmocka_unit_test(test_fixed_bits_cr4),
        cmocka_unit_test(test_bit_names),
        cmocka_unit_test(test_names_cover_lead_masks),
        cmocka_unit_test(test_describe_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
