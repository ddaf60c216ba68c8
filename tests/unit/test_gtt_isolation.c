/* gtt/'s part in keeping guests apart: every vGPU's unmapped entries point at its
 * own scratch page; fences whose de-tiling would leave their range are refused for every
 * pitch, tiling and size the register can hold; every update of the physical GGTT is
 * followed by one invalidate, as i915's
 * gen8_ggtt_insert_page() does, or the GPU may still use a stale translation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "test_gtt_fake.h"

#define M               (UINT64_C(1) << 20)
#define K4              (UINT64_C(4096))
#define VGPU_SCRATCH(v) ((UINT64_C(0x7100000000) + ((uint64_t)(v) << 12)) | GEN9_GGTT_PTE_PRESENT)

static unsigned invalidates;

static void fake_invalidate(void *ctx)
{
    (void)ctx;
    invalidates++;
}

static int fake_vgpu_scratch(void *ctx, unsigned vgpu, uint64_t *pte)
{
    (void)ctx;
    *pte = VGPU_SCRATCH(vgpu);
    return 0;
}

struct env {
    struct gtt_layout lay;
    struct fake f;
    struct gtt g;
};

static struct env *env_new(void)
{
    struct env *e = calloc(1, sizeof *e);
    assert_int_equal(small_layout(&e->lay, 2, 4 * M, 2 * M, GTT_SHARE_ALL), 0);
    fake_init(&e->f, &e->lay);
    struct gtt_config c = fake_config(&e->f, &e->lay);
    c.ops.vgpu_scratch = fake_vgpu_scratch;
    c.ops.ggtt_invalidate = fake_invalidate;
    assert_int_equal(gtt_init(&e->g, &c), 0);
    assert_int_equal(gtt_vgpu_create_from_layout(&e->g, 0), 0);
    assert_int_equal(gtt_vgpu_create_from_layout(&e->g, 1), 0);
    invalidates = 0;
    return e;
}

static void env_free(struct env *e)
{
    gtt_fini(&e->g);
    fake_fini(&e->f);
    free(e);
}

/* Every entry of a vGPU's ranges that its guest has not mapped (or has unmapped) holds its own
 * scratch page, in its shadow and, once it runs, in the physical GGTT. */
static void unmapped_entries_point_at_the_vgpus_own_scratch(void **state)
{
    (void)state;
    struct env *e = env_new();
    for (unsigned v = 0; v < 2; v++) {
        const struct gtt_vgpu *gv = gtt_vgpu_get(&e->g, v);
        uint32_t lo = (uint32_t)(gv->low.start >> 12), hi = (uint32_t)(e->lay.slots.start >> 12);
        uint64_t pte;
        assert_int_equal(gtt_shadow_pte(&e->g, v, lo, &pte), 0);
        assert_int_equal(pte, VGPU_SCRATCH(v));
        assert_int_equal(gtt_shadow_pte(&e->g, v, hi + e->lay.guest[v].first_slot * 256u, &pte), 0);
        assert_int_equal(pte, VGPU_SCRATCH(v));
        /* map, then unmap: back to its own scratch */
        assert_int_equal(gtt_guest_write(&e->g, v, lo, gpte(0x5000)), 0);
        assert_int_equal(gtt_guest_write(&e->g, v, lo, 0), 0);
        assert_int_equal(gtt_shadow_pte(&e->g, v, lo, &pte), 0);
        assert_int_equal(pte, VGPU_SCRATCH(v));
    }
    /* After a switch the physical GGTT holds the running vGPU's scratch, never the other's. */
    gtt_set_active(&e->g, 1, true);
    assert_true(gtt_switch_to(&e->g, 1) > 0);
    const struct gtt_vgpu *g1 = gtt_vgpu_get(&e->g, 1);
    for (uint64_t a = g1->low.start; a < g1->low.start + g1->low.size; a += K4)
        assert_int_equal(e->f.ggtt[a >> 12], VGPU_SCRATCH(1));
    /* A slot granted later starts as its scratch too. */
    assert_int_equal(gtt_balloon_shrink(&e->g, 1, 1), 0);
    assert_int_equal(gtt_balloon_grow(&e->g, 1, 1), 0);
    unsigned slots[8];
    unsigned n = gtt_vgpu_slots(&e->g, 1, slots, 8);
    uint64_t pte;
    assert_int_equal(gtt_shadow_pte(&e->g, 1,
                                    (uint32_t)(e->lay.slots.start >> 12) + slots[n - 1] * 256u,
                                    &pte),
                     0);
    assert_int_equal(pte, VGPU_SCRATCH(1));
    env_free(e);
}

/* Every encodable (pitch, tiling) and a spread of sizes: accepted exactly when the pitch is
 * whole tiles and the size whole tile rows, and an accepted fence's physical value has the
 * same shape over an equal pool range. */
static void fence_shapes_that_leave_their_range_are_refused(void **state)
{
    (void)state;
    struct env *e = env_new();
    const struct gtt_vgpu *v0 = gtt_vgpu_get(&e->g, 0);
    char err[256];
    struct gtt_fence_result r;
    unsigned accepted = 0, refused = 0;
    for (unsigned y = 0; y < 2; y++) {
        for (uint32_t pitch = 128; pitch <= GEN9_FENCE_MAX_PITCH_VAL * 128u; pitch += 128) {
            uint64_t row = gen9_fence_tile_row_bytes(pitch, y);
            uint64_t sizes[] = { K4, row, row - K4, row + K4, 2 * row, 3 * row + K4 };
            for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                uint64_t size = sizes[k];
                if (size == 0 || size % K4 || size > v0->low.size || size > v0->pool.size)
                    continue;
                bool ok = pitch % (y ? 128u : 512u) == 0 && size % row == 0;
                uint64_t val = gtt_fence_encode(v0->low.start, size, pitch, y, true);
                int rc = gtt_fence_write(&e->g, 0, 0, val, &r, err, sizeof err);
                if (ok) {
                    assert_int_equal(rc, 0);
                    struct gtt_fence_fields ff;
                    gtt_fence_decode(r.phys_value, &ff);
                    assert_int_equal(ff.size, size);
                    assert_int_equal(ff.pitch_bytes, pitch);
                    assert_int_equal(ff.tiled_y, y);
                    accepted++;
                } else {
                    assert_int_equal(rc, GTT_EINVAL);
                    assert_non_null(strstr(err, "tile rows"));
                    refused++;
                }
                assert_int_equal(gtt_fence_write(&e->g, 0, 0, 0, &r, err, sizeof err), 0);
            }
        }
    }
    assert_true(accepted > 100 && refused > 1000);
    assert_true(gtt_pool_consistent(&v0->pool));
    assert_int_equal(gtt_pool_used(&v0->pool), 0);
    env_free(e);
}

/* One invalidate after every call that changed the physical GGTT, none after those that did
 * not (i915 invalidates after every insert). */
static void every_ggtt_update_is_invalidated(void **state)
{
    (void)state;
    struct env *e = env_new();
    const struct gtt_vgpu *v0 = gtt_vgpu_get(&e->g, 0), *v1 = gtt_vgpu_get(&e->g, 1);
    uint32_t i0 = (uint32_t)(v0->low.start >> 12);
    /* nobody runs: the write stays in the shadow, nothing to invalidate */
    assert_int_equal(gtt_guest_write(&e->g, 0, i0, gpte(0x1000)), 0);
    assert_int_equal(invalidates, 0);
    gtt_set_active(&e->g, 0, true);
    gtt_set_active(&e->g, 1, true);
    assert_true(gtt_switch_to(&e->g, 0) > 0);
    assert_int_equal(invalidates, 1);
    assert_int_equal(gtt_switch_to(&e->g, 0), 0); /* already there */
    assert_int_equal(invalidates, 1);
    /* the running guest's write reaches the live GGTT: invalidated at once */
    assert_int_equal(gtt_guest_write(&e->g, 0, i0 + 1, gpte(0x2000)), 0);
    assert_int_equal(e->f.ggtt[i0 + 1], hpte(0, 0x2000));
    assert_int_equal(invalidates, 2);
    /* a predictive copy writes entries ahead: invalidated too */
    assert_true(gtt_predict(&e->g, 1) > 0);
    assert_int_equal(invalidates, 3);
    assert_int_equal(gtt_predict(&e->g, 1), 0); /* nothing left to copy */
    assert_int_equal(invalidates, 3);
    /* a refused write changes nothing */
    assert_int_equal(gtt_guest_write(&e->g, 0,
                                     (uint32_t)(v1->low.start >> 12) +
                                         (uint32_t)(v1->low.size >> 12),
                                     gpte(0)),
                     GTT_ERANGE);
    assert_int_equal(invalidates, 3);
    /* fences copy entries into the pool and scrub them again */
    char err[160];
    struct gtt_fence_result r;
    assert_int_equal(gtt_fence_write(&e->g, 0, 0,
                                     gtt_fence_encode(v0->low.start, 4 * K4, 512, 0, 1), &r, err,
                                     sizeof err),
                     0);
    assert_int_equal(invalidates, 4);
    assert_int_equal(gtt_fence_write(&e->g, 0, 0, 0, &r, err, sizeof err), 0);
    assert_int_equal(invalidates, 5);
    assert_int_equal(e->g.st.invalidates, 6); /* and gtt_init's scrub */
    env_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unmapped_entries_point_at_the_vgpus_own_scratch),
        cmocka_unit_test(fence_shapes_that_leave_their_range_are_refused),
        cmocka_unit_test(every_ggtt_update_is_invalidated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
