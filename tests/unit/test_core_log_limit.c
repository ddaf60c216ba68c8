/* The log's per-guest rate limit (vmm/log_limit.c): a burst gets through, then one line per
 * refill period; what is dropped is reported once, when the next line gets through or when the
 * source has been quiet; a guest's lines are recognised by their prefix. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "vmm/log_limit.h"

#define MS 1000000ull

static void test_burst_then_one_per_period(void **state)
{
    (void)state;
    struct log_limit l;
    memset(&l, 0, sizeof l);
    uint32_t report;
    uint64_t since, t = 5000 * MS;
    for (unsigned i = 0; i < LOG_LIMIT_BURST; i++) {
        assert_true(log_limit_take(&l, t, &report, &since));
        assert_int_equal(report, 0);
    }
    /* A flood of 10 000 lines in the next 100 ms: all dropped. */
    for (unsigned i = 0; i < 10000; i++)
        assert_false(log_limit_take(&l, t + i * 10000ull, &report, &since));
    /* One period later one line gets through, and says how many were dropped since when. */
    assert_true(log_limit_take(&l, t + LOG_LIMIT_EVERY_NS, &report, &since));
    assert_int_equal(report, 10000);
    assert_int_equal(since, t);
    assert_false(log_limit_take(&l, t + LOG_LIMIT_EVERY_NS + 1, &report, &since));
    /* A sustained storm is held to one line a period, 20 s of one line every ms, and its
     * summaries come once every LOG_LIMIT_REPORT_NS, not with every line. */
    unsigned passed = 0, reports = 0;
    uint64_t said = 0;
    for (uint64_t u = t + LOG_LIMIT_EVERY_NS + 2; u < t + 21000 * MS; u += MS) {
        passed += log_limit_take(&l, u, &report, &since);
        reports += report != 0;
        said += report;
    }
    assert_in_range(passed, 20500 * MS / LOG_LIMIT_EVERY_NS - 1,
                    20500 * MS / LOG_LIMIT_EVERY_NS + 1);
    assert_int_equal(reports, 2); /* 10 s and 20 s after the first summary */
    assert_true(said >= 19000);
}

static void test_quiet_source_reports_and_refills(void **state)
{
    (void)state;
    struct log_limit l;
    memset(&l, 0, sizeof l);
    uint32_t report;
    uint64_t since, t = 1000 * MS;
    for (unsigned i = 0; i < LOG_LIMIT_BURST + 7; i++)
        log_limit_take(&l, t, &report, &since);
    assert_int_equal(log_limit_flush(&l, t + LOG_LIMIT_EVERY_NS / 2, &since), 0); /* not yet */
    assert_int_equal(log_limit_flush(&l, t + LOG_LIMIT_EVERY_NS, &since), 7);
    assert_int_equal(since, t);
    assert_int_equal(log_limit_flush(&l, t + 2 * LOG_LIMIT_EVERY_NS, &since), 0); /* once */
    /* After a long quiet spell the whole burst is back. */
    unsigned passed = 0;
    for (unsigned i = 0; i < 2 * LOG_LIMIT_BURST; i++)
        passed += log_limit_take(&l, t + 3600000 * MS, &report, &since);
    assert_int_equal(passed, LOG_LIMIT_BURST);
}

/* The watchdog's pattern under a runaway attack: two lines every 0.6 s, more than the
 * limiter's rate, and each gap looks like a quiet spell to log.c's flush (called every 100 ms).  Summaries
 * still come at most once every LOG_LIMIT_REPORT_NS, and every dropped line is counted in one. */
static void test_slow_storm_is_summed_up_every_report_period(void **state)
{
    (void)state;
    struct log_limit l;
    memset(&l, 0, sizeof l);
    uint32_t report, summaries = 0, dropped = 0, said = 0;
    uint64_t since, t0 = 1000 * MS;
    for (uint64_t t = t0; t < t0 + 31000 * MS; t += 100 * MS) {
        for (unsigned k = 0; (t - t0) % (600 * MS) == 0 && k < 2; k++) { /* watchdog + reset */
            if (!log_limit_take(&l, t, &report, &since))
                dropped++;
            summaries += report != 0;
            said += report;
        }
        uint32_t n = log_limit_flush(&l, t, &since);
        summaries += n != 0;
        said += n;
    }
    assert_true(dropped > 0);
    assert_in_range(summaries, 1, 4); /* ~0, 10, 20 and 30 s */
    assert_in_range(said, dropped - l.suppressed, dropped);
}

static void test_source_from_prefix(void **state)
{
    (void)state;
    assert_int_equal(log_source_of("vgpu 3: fence 1 refused"), 3);
    assert_int_equal(log_source_of("guest 12 (kiosk12): RDMSR 0x10 at RIP ..."), 12);
    assert_int_equal(log_source_of("vgpu: 4 vGPUs on the software Gen9 model"), -1);
    assert_int_equal(log_source_of("guests started"), -1);
    assert_int_equal(log_source_of("vgpu 3x: nothing"), -1);
    assert_int_equal(log_source_of("gtt: 4096 MiB GGTT"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_then_one_per_period),
        cmocka_unit_test(test_quiet_source_reports_and_refills),
        cmocka_unit_test(test_slow_storm_is_summed_up_every_report_period),
        cmocka_unit_test(test_source_from_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
