/* The shell's argument handling (vmm/shell/args.c): splitting a line into words at spaces and
 * tabs, and strict number parsing (decimal or 0x hex; anything else, and overflow, refused). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "vmm/shell/args.h"

/* ---- args_split --------------------------------------------------------------------------- */

/* Splits a copy of `line` with at most `max` words and checks the result (want_n < 0: refused). */
static void split_expect(const char *line, int max, int want_n, const char *const *want)
{
    char buf[256];
    char *argv[SHELL_MAX_ARGS + 4];
    assert_true(strlen(line) < sizeof buf);
    assert_true(max <= SHELL_MAX_ARGS + 4);
    strcpy(buf, line);
    int n = args_split(buf, argv, max);
    assert_int_equal(n, want_n);
    for (int i = 0; i < n; i++) {
        assert_string_equal(argv[i], want[i]);
        /* Words point into the caller's line, cut in place. */
        assert_true(argv[i] >= buf && argv[i] < buf + sizeof buf);
    }
}

/* Single spaces between words. */
static void test_split_simple(void **state)
{
    (void)state;
    const char *w[] = { "cpuid", "0x7", "0" };
    split_expect("cpuid 0x7 0", SHELL_MAX_ARGS, 3, w);
    const char *one[] = { "help" };
    split_expect("help", SHELL_MAX_ARGS, 1, one);
}

/* Tabs, runs of blanks, and leading/trailing blanks all separate words and never make empty
 * ones. */
static void test_split_blanks(void **state)
{
    (void)state;
    const char *w[] = { "rdmsr", "0x1b", "x" };
    split_expect("  \trdmsr\t\t 0x1b   x \t ", SHELL_MAX_ARGS, 3, w);
    const char *v[] = { "a", "b" };
    split_expect("a\tb", SHELL_MAX_ARGS, 2, v);
}

/* An empty or all-blank line has no words. */
static void test_split_empty(void **state)
{
    (void)state;
    split_expect("", SHELL_MAX_ARGS, 0, NULL);
    split_expect("   \t  ", SHELL_MAX_ARGS, 0, NULL);
    split_expect("", 0, 0, NULL);
}

/* Exactly `max` words fit (trailing blanks or not); one more is refused. */
static void test_split_limit(void **state)
{
    (void)state;
    const char *w[] = { "1", "2", "3", "4", "5", "6", "7", "8" };
    assert_int_equal(SHELL_MAX_ARGS, 8);
    split_expect("1 2 3 4 5 6 7 8", SHELL_MAX_ARGS, 8, w);
    split_expect("1 2 3 4 5 6 7 8  \t", SHELL_MAX_ARGS, 8, w);
    split_expect("1 2 3 4 5 6 7 8 9", SHELL_MAX_ARGS, -1, NULL);
    split_expect("a", 1, 1, (const char *[]){ "a" });
    split_expect("a b", 1, -1, NULL);
    split_expect("a", 0, -1, NULL);
}

/* Refusing a line with too many words never writes past argv[max - 1]. */
static void test_split_no_write_past_max(void **state)
{
    (void)state;
    char line[] = "a b c d";
    char *argv[4] = { NULL, NULL, NULL, (char *)"sentinel" };
    assert_int_equal(args_split(line, argv, 3), -1);
    assert_string_equal(argv[3], "sentinel");
}

/* ---- args_parse_u64 ----------------------------------------------------------------------- */

static void u64_ok(const char *s, uint64_t want)
{
    uint64_t v = 0xDEADBEEFDEADBEEFULL;
    if (!args_parse_u64(s, &v))
        fail_msg("\"%s\" was refused", s);
    assert_int_equal(v, want);
}

/* Refused, and the output is left untouched. */
static void u64_bad(const char *s)
{
    uint64_t v = 0x5A5A5A5A5A5A5A5AULL;
    if (args_parse_u64(s, &v))
        fail_msg("\"%s\" was accepted as %llu", s ? s : "(null)", (unsigned long long)v);
    assert_int_equal(v, 0x5A5A5A5A5A5A5A5AULL);
}

/* Decimal numbers, with leading zeros, up to UINT64_MAX. */
static void test_u64_decimal(void **state)
{
    (void)state;
    u64_ok("0", 0);
    u64_ok("1", 1);
    u64_ok("42", 42);
    u64_ok("007", 7);
    u64_ok("4294967296", 4294967296ULL);
    u64_ok("18446744073709551615", UINT64_MAX);
    u64_ok("018446744073709551615", UINT64_MAX);
    u64_ok("18446744073709551610", UINT64_MAX - 5);
}

/* Hexadecimal with 0x or 0X, digits in either case, up to 16 f's. */
static void test_u64_hex(void **state)
{
    (void)state;
    u64_ok("0x0", 0);
    u64_ok("0x1b", 0x1B);
    u64_ok("0X1B", 0x1B);
    u64_ok("0xDeadBeef", 0xDEADBEEFULL);
    u64_ok("0xabcdef", 0xABCDEF);
    u64_ok("0xABCDEF", 0xABCDEF);
    u64_ok("0x0000000000000000001", 1);
    u64_ok("0xffffffffffffffff", UINT64_MAX);
    u64_ok("0xFFFFFFFFFFFFFFFF", UINT64_MAX);
}

/* One past UINT64_MAX, and far past it, in either base. */
static void test_u64_overflow(void **state)
{
    (void)state;
    u64_bad("18446744073709551616");
    u64_bad("18446744073709551620");
    u64_bad("99999999999999999999");
    u64_bad("184467440737095516150");
    u64_bad("0x10000000000000000");
    u64_bad("0x1ffffffffffffffff");
}

/* Empty, bare prefix, trailing junk, signs, blanks, hex digits without a prefix, NULL. */
static void test_u64_malformed(void **state)
{
    (void)state;
    u64_bad("");
    u64_bad("0x");
    u64_bad("0X");
    u64_bad("12x");
    u64_bad("-1");
    u64_bad("+1");
    u64_bad(" 1");
    u64_bad("1 ");
    u64_bad("1a");
    u64_bad("ff");
    u64_bad("x10");
    u64_bad("0xg");
    u64_bad("0x 1");
    u64_bad("0x-1");
    u64_bad("0x0x1");
    u64_bad("00x1");
    u64_bad("1.5");
    u64_bad(NULL);
}

/* ---- args_parse_u32 ----------------------------------------------------------------------- */

/* The full 32-bit range in both bases. */
static void test_u32_range(void **state)
{
    (void)state;
    uint32_t v = 7;
    assert_true(args_parse_u32("0", &v));
    assert_int_equal(v, 0);
    assert_true(args_parse_u32("4294967295", &v));
    assert_int_equal(v, UINT32_MAX);
    assert_true(args_parse_u32("0xffffffff", &v));
    assert_int_equal(v, UINT32_MAX);
    assert_true(args_parse_u32("0x1B", &v));
    assert_int_equal(v, 0x1B);
}

/* Anything above UINT32_MAX (not truncated), and what u64 refuses, is refused; the output is
 * left untouched. */
static void test_u32_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "4294967296",
        "0x100000000",
        "18446744073709551615",
        "18446744073709551616",
        "",
        "0x",
        "12x",
        "-1",
        " 1",
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t v = 0x5A5A5A5A;
        if (args_parse_u32(bad[i], &v))
            fail_msg("\"%s\" was accepted as %u", bad[i], v);
        assert_int_equal(v, 0x5A5A5A5A);
    }
    uint32_t v = 3;
    assert_false(args_parse_u32(NULL, &v));
    assert_int_equal(v, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_simple),
        cmocka_unit_test(test_split_blanks),
        cmocka_unit_test(test_split_empty),
        cmocka_unit_test(test_split_limit),
        cmocka_unit_test(test_split_no_write_past_max),
        cmocka_unit_test(test_u64_decimal),
        cmocka_unit_test(test_u64_hex),
        cmocka_unit_test(test_u64_overflow),
        cmocka_unit_test(test_u64_malformed),
        cmocka_unit_test(test_u32_range),
        cmocka_unit_test(test_u32_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
