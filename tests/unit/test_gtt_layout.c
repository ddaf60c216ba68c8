/* Layout: every fit rule and every error path, with the exact messages config will show. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gtt/layout.h"

#define MIB GTT_MIB

static struct gtt_guest_request req[GTT_MAX_VGPUS + 1];
static struct gtt_layout lay;
static char err[320];

static void fill(unsigned n, uint64_t low, uint64_t high)
{
    for (unsigned i = 0; i < n; i++)
        req[i] = (struct gtt_guest_request){ low, high };
}

static int compute(const struct gtt_layout_params *p)
{
    memset(err, 0, sizeof err);
    return gtt_layout_compute(p, &lay, err, sizeof err);
}

/* Whether any two of the n ranges overlap. */
static bool ranges_overlap(unsigned n, bool low)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = i + 1; j < n; j++) {
            uint64_t a0, a1, b0, b1;
            if (low) {
                a0 = lay.guest[i].low.start, a1 = a0 + lay.guest[i].low.size;
                b0 = lay.guest[j].low.start, b1 = b0 + lay.guest[j].low.size;
            } else {
                a0 = lay.guest[i].first_slot, a1 = a0 + lay.guest[i].n_slots;
                b0 = lay.guest[j].first_slot, b1 = b0 + lay.guest[j].n_slots;
            }
            if (a0 < b1 && b0 < a1 && a0 != a1 && b0 != b1)
                return true;
        }
    return false;
}

static void test_defaults_fit_15_gscale_guests(void **state)
{
    (void)state;
    struct gtt_layout_params p;
    fill(15, 64 * MIB, 384 * MIB);
    gtt_layout_defaults(&p, 15, req);
    assert_int_equal(compute(&p), 0);
    assert_string_equal(err, "");
    assert_int_equal(lay.host.start, 0);
    assert_int_equal(lay.host.size, GTT_DEFAULT_HOST_AREA);
    assert_int_equal(lay.fence_pool.start, GTT_DEFAULT_HOST_AREA);
    assert_int_equal(lay.fence_pool.size, GTT_DEFAULT_FENCE_POOL);
    assert_int_equal(lay.low_guest.start, 48 * MIB);
    assert_int_equal(lay.low_guest.size, 208 * MIB);
    assert_int_equal(lay.slots.start, 256 * MIB);
    assert_int_equal(lay.n_slots, 60); /* 3840 MiB / 64 MiB */
    assert_int_equal(gtt_layout_slot_addr(&lay, 3), 256 * MIB + 3 * 64 * MIB);
    for (unsigned i = 0; i < 15; i++) {
        const struct gtt_guest_layout *g = &lay.guest[i];
        assert_int_equal(g->low.size, 64 * MIB);
        assert_true(g->low.start >= lay.low_guest.start);
        assert_true(g->low.start + g->low.size <= lay.low_guest.start + lay.low_guest.size);
        assert_int_equal(g->n_slots, 6);
        assert_true(g->first_slot + g->n_slots <= lay.n_slots);
    }
    /* 90 slot grants over 60 slots: the best possible is two per slot, and 960 MiB of windows
     * over 208 MiB is at best five per page. */
    assert_int_equal(lay.max_slot_share, 2);
    assert_int_equal(lay.max_low_share, 5);
}

static void test_few_guests_get_private_ranges(void **state)
{
    (void)state;
    struct gtt_layout_params p;
    fill(3, 64 * MIB, 384 * MIB);
    gtt_layout_defaults(&p, 3, req);
    assert_int_equal(compute(&p), 0);
    assert_false(ranges_overlap(3, true));
    assert_false(ranges_overlap(3, false));
    assert_int_equal(lay.max_low_share, 1);
    assert_int_equal(lay.max_slot_share, 1);
}

static void test_partition_modes_never_overlap(void **state)
{
    (void)state;
    struct gtt_layout_params p;
    fill(3, 64 * MIB, 384 * MIB);
    req[1].high_gm_bytes = 1024 * MIB; /* mixed sizes must still pack */
    req[2].low_gm_bytes = 16 * MIB;
    gtt_layout_defaults(&p, 3, req);
    p.share = GTT_SHARE_NONE;
    assert_int_equal(compute(&p), 0);
    assert_false(ranges_overlap(3, true));
    assert_false(ranges_overlap(3, false));
    p.share = GTT_SHARE_HIGH;
    assert_int_equal(compute(&p), 0);
    assert_false(ranges_overlap(3, true));
}

static void test_high_request_rounds_up_to_slots(void **state)
{
    (void)state;
    struct gtt_layout_params p;
    fill(1, 4 * MIB, 65 * MIB);
    gtt_layout_defaults(&p, 1, req);
    assert_int_equal(compute(&p), 0);
    assert_int_equal(lay.guest[0].n_slots, 2);
    assert_int_equal(gtt_layout_slots_for(&lay, 0), 0);
    assert_int_equal(gtt_layout_slots_for(&lay, 64 * MIB), 1);
}

static void test_low_sum_short_message(void **state)
{
    (void)state;
    struct gtt_layout_params p;
    fill(17, 64 * MIB, 0);
    gtt_layout_defaults(&p, 17, req);
    p.aperture_bytes = 1024 * MIB;
    p.fence_pool_bytes = 48 * MIB;
    p.share = GTT_SHARE_HIGH;
    assert_int_equal(compute(&p), GTT_ENOSPC);
    assert_string_equal(err, "low graphics memory: guests ask 1088 MiB, aperture (1024 MiB) "
                             "leaves 960 MiB after host area (16 MiB) and fence pool (48 MiB): "
                             "128 MiB short");
}

static void test_low_one_guest_too_big_when_shared(void **state)
{
    (void)state;
    struct gtt_layout_params p;
    fill(2, 64 * MIB, 0);
    req[1].low_gm_bytes = 256 * MIB;
    gtt_layout_defaults(&p, 2, req);
    assert_int_equal(compute(&p), GTT_ENOSPC);
    assert_string_equal(err, "low graphics memory: guest 1 asks 256 MiB, aperture (256 MiB) "
                             "leaves 208 MiB after host area (16 MiB) and fence pool (32 MiB): "
                             "48 MiB short");
}

static void test_reserved_areas_exceed_aperture(void **state)
{
    (void)state;
    struct gtt_layout_params p;
    gtt_layout_defaults(&p, 0, NULL);
    p.fence_pool_bytes = 300 * MIB; /* gScale's pool does not fit a 256 MiB aperture */
    assert_int_equal(compute(&p), GTT_ENOSPC);
    assert_string_equal(err, "low graphics memory: host area (16 MiB) and fence pool (300 MiB) "
                             "need 316 MiB, aperture is 256 MiB: 60 MiB short");
}

static void test_high_one_guest_too_big(void **state)
{
    (void)state;
    struct gtt_layout_params p;
    fill(1, 0, 4096 * MIB);
    gtt_layout_defaults(&p, 1, req);
    assert_int_equal(compute(&p), GTT_ENOSPC);
    assert_string_equal(err, "high graphics memory: guest 0 asks 4096 MiB (64 slots of 64 MiB), "
                             "high GM holds 60 slots: 4 slots (256 MiB) short");
}

static void test_high_sum_static_partition(void **state)
{
    (void)state;
    struct gtt_layout_params p;
    fill(11, 0, 384 * MIB);
    gtt_layout_defaults(&p, 11, req);
    p.share = GTT_SHARE_NONE;
    assert_int_equal(compute(&p), GTT_ENOSPC);
    assert_string_equal(err, "high graphics memory: guests ask 66 slots of 64 MiB (4224 MiB), "
                             "high GM holds 60 slots: 6 slots (384 MiB) short");
    p.n_guests = 10; /* exactly 60 slots fit */
    assert_int_equal(compute(&p), 0);
    assert_false(ranges_overlap(10, false));
}

static void test_max_share_limit(void **state)
{
    (void)state;
    struct gtt_layout_params p;
    fill(15, 0, 384 * MIB);
    gtt_layout_defaults(&p, 15, req);
    p.max_share = 1;
    assert_int_equal(compute(&p), GTT_ENOSPC);
    assert_string_equal(err, "high graphics memory: placing 15 guests shares one slot among 2 "
                             "guests, the limit is 1: 1 too many on it");
    p.max_share = 2;
    assert_int_equal(compute(&p), 0);
    fill(15, 64 * MIB, 0);
    p.max_share = 4;
    assert_int_equal(compute(&p), GTT_ENOSPC);
    assert_non_null(strstr(err, "low graphics memory: placing 15 guests shares one page among 5"));
}

static void test_too_many_guests(void **state)
{
    (void)state;
    struct gtt_layout_params p;
    fill(GTT_MAX_VGPUS + 1, 0, 0);
    gtt_layout_defaults(&p, GTT_MAX_VGPUS + 1, req);
    assert_int_equal(compute(&p), GTT_ETOOMANY);
    assert_non_null(strstr(err, "at most 128 vGPUs"));
}

static void test_invalid_parameters(void **state)
{
    (void)state;
    struct gtt_layout_params p;
    fill(1, 64 * MIB, 64 * MIB);
    gtt_layout_defaults(&p, 1, req);
    assert_int_equal(gtt_layout_compute(NULL, &lay, err, sizeof err), GTT_EINVAL);
    assert_int_equal(gtt_layout_compute(&p, NULL, err, sizeof err), GTT_EINVAL);
    assert_int_equal(gtt_layout_compute(&p, &lay, NULL, 0), 0); /* no message buffer is fine */

    struct gtt_layout_params q = p;
    q.req = NULL;
    assert_int_equal(compute(&q), GTT_EINVAL);
    assert_string_equal(err, "guest requests missing (req is NULL)");
    q = p, q.share = (enum gtt_share_mode)7;
    assert_int_equal(compute(&q), GTT_EINVAL);
    q = p, q.ggtt_bytes = 0;
    assert_int_equal(compute(&q), GTT_EINVAL);
    assert_non_null(strstr(err, "GGTT size 0 MiB must be"));
    q = p, q.ggtt_bytes = 8192 * MIB;
    assert_int_equal(compute(&q), GTT_EINVAL);
    q = p, q.ggtt_bytes = 4096 * MIB - 100;
    assert_int_equal(compute(&q), GTT_EINVAL);
    q = p, q.aperture_bytes = 0;
    assert_int_equal(compute(&q), GTT_EINVAL);
    q = p, q.aperture_bytes = 8192 * MIB;
    assert_int_equal(compute(&q), GTT_EINVAL);
    q = p, q.slot_bytes = 0;
    assert_int_equal(compute(&q), GTT_EINVAL);
    assert_non_null(strstr(err, "slot size"));
    q = p, q.slot_bytes = 1000;
    assert_int_equal(compute(&q), GTT_EINVAL);
    q = p, q.host_area_bytes = 5000;
    assert_int_equal(compute(&q), GTT_EINVAL);
    assert_non_null(strstr(err, "host area (5000 bytes)"));
    req[0].low_gm_bytes = 4097;
    assert_int_equal(compute(&p), GTT_EINVAL);
    assert_string_equal(err, "guest 0: low (4097 bytes) and high (64 MiB) graphics memory must "
                             "be multiples of 4 KiB");
    req[0].low_gm_bytes = 8192 * MIB;
    assert_int_equal(compute(&p), GTT_ENOSPC);
    assert_non_null(strstr(err, "guest 0: request larger than any GGTT"));
}

static void test_err_buffer_truncates_safely(void **state)
{
    (void)state;
    struct gtt_layout_params p;
    char small[8];
    fill(1, 0, 4096 * MIB);
    gtt_layout_defaults(&p, 1, req);
    memset(small, 'x', sizeof small);
    assert_int_equal(gtt_layout_compute(&p, &lay, small, sizeof small), GTT_ENOSPC);
    assert_int_equal(strlen(small), 7);
    assert_memory_equal(small, "high gr", 7);
}

static void test_no_slots_left_when_aperture_is_everything(void **state)
{
    (void)state;
    struct gtt_layout_params p;
    fill(1, 64 * MIB, 64 * MIB);
    gtt_layout_defaults(&p, 1, req);
    p.ggtt_bytes = p.aperture_bytes = 256 * MIB;
    assert_int_equal(compute(&p), GTT_ENOSPC);
    assert_string_equal(err, "high graphics memory: guest 0 asks 64 MiB (1 slots of 64 MiB), "
                             "high GM holds 0 slots: 1 slots (64 MiB) short");
    req[0].high_gm_bytes = 0;
    assert_int_equal(compute(&p), 0);
    assert_int_equal(lay.n_slots, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_fit_15_gscale_guests),
        cmocka_unit_test(test_few_guests_get_private_ranges),
        cmocka_unit_test(test_partition_modes_never_overlap),
        cmocka_unit_test(test_high_request_rounds_up_to_slots),
        cmocka_unit_test(test_low_sum_short_message),
        cmocka_unit_test(test_low_one_guest_too_big_when_shared),
        cmocka_unit_test(test_reserved_areas_exceed_aperture),
        cmocka_unit_test(test_high_one_guest_too_big),
        cmocka_unit_test(test_high_sum_static_partition),
        cmocka_unit_test(test_max_share_limit),
        cmocka_unit_test(test_too_many_guests),
        cmocka_unit_test(test_invalid_parameters),
        cmocka_unit_test(test_err_buffer_truncates_safely),
        cmocka_unit_test(test_no_slots_left_when_aperture_is_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
