/*
 * The i915 guest's uAPI check (guests/linux/i915/i915-colorblt.c) on Tessera's Gen9 model: the
 * batch the program submits, with its destination written at the relocation offset the program
 * gives the kernel, run as a batch buffer from the blitter's ring, paints exactly the rectangle
 * the program's pixel check expects, and that check catches a wrong colour, a wrong address
 * and a batch that never ran.
 */
#include "test_igpu_model_fixture.h"

#include "guests/linux/i915/colorblt.h"

enum { W = 256, H = 128, PITCH = W * COLORBLT_BPP };
#define COLOUR 0xFF336699u

static uint32_t *surface(struct fx *f)
{
    /* fx_map_all maps graphics memory linearly, so the buffer is contiguous here too. */
    return (uint32_t *)(f->mem + fx_pa(FX_DATA));
}

static void paint_background(struct fx *f)
{
    uint32_t *px = surface(f);
    for (unsigned y = 0; y < H; y++)
        for (unsigned x = 0; x < W; x++)
            px[y * W + x] = colorblt_background(x, y);
}

/* The batch at FX_BATCH as the kernel leaves it: built with address 0, then the relocation's
 * 64-bit write of the destination at COLORBLT_RELOC_OFFSET.  The ring starts it as a
 * GGTT batch (i915's command parser runs Gen9 blitter batches from a GGTT shadow). */
static void run_batch(struct fx *f, uint64_t dst, uint32_t colour)
{
    const struct colorblt_rect r = colorblt_rect_for(W, H);
    uint32_t b[COLORBLT_BATCH_DWORDS];
    unsigned n = colorblt_batch(b, &r, PITCH, colour, 0);
    assert_int_equal(n, COLORBLT_BATCH_DWORDS);
    assert_int_equal(n % 2, 0); /* i915: batch_len in whole qwords */
    memcpy((uint8_t *)b + COLORBLT_RELOC_OFFSET, &dst, sizeof(dst));
    memcpy(f->mem + fx_pa(FX_BATCH), b, sizeof(b));
    const uint32_t ring[4] = { GEN9_MI_BATCH_BUFFER_START, FX_BATCH, 0, GEN9_MI_NOOP };
    fx_run_cmds(f, IGPU_BCS, ring, 4);
    const struct igpu_model_fault *fault = igpu_model_fault(f->m, IGPU_BCS);
    if (fault)
        fail_msg("the model faulted: %s (header 0x%08x at 0x%llx)", fault->detail, fault->header,
                 (unsigned long long)fault->cmd_gaddr);
}

static void test_batch_paints_what_the_check_expects(void **state)
{
    struct fx f;
    const struct colorblt_rect r = colorblt_rect_for(W, H);
    (void)state;
    fx_init(&f);
    paint_background(&f);
    run_batch(&f, FX_DATA, COLOUR);
    struct colorblt_result res = colorblt_check(surface(&f), W, H, &r, COLOUR, NULL, NULL);
    assert_int_equal(res.inside, (r.x2 - r.x1) * (r.y2 - r.y1));
    assert_int_equal(res.inside + res.outside, W * H);
    assert_int_equal(res.wrong_inside, 0);
    assert_int_equal(res.wrong_outside, 0);
    fx_fini(&f);
}

static unsigned long reported;
static void count_bad(void *ctx, unsigned x, unsigned y, int inside, uint32_t got, uint32_t want)
{
    (void)ctx, (void)x, (void)y, (void)inside;
    assert_true(got != want);
    reported++;
}

static void test_check_catches_wrong_results(void **state)
{
    struct fx f;
    const struct colorblt_rect r = colorblt_rect_for(W, H);
    const unsigned long inside = (unsigned long)(r.x2 - r.x1) * (r.y2 - r.y1);
    (void)state;
    fx_init(&f);

    /* Another colour than asked for: every inside pixel is wrong, and reported. */
    paint_background(&f);
    run_batch(&f, FX_DATA, 0xFF000000u);
    reported = 0;
    struct colorblt_result res = colorblt_check(surface(&f), W, H, &r, COLOUR, count_bad, NULL);
    assert_int_equal(res.wrong_inside, inside);
    assert_int_equal(res.wrong_outside, 0);
    assert_int_equal(reported, inside);

    /* The blit one row lower (a wrong address): pixels on both sides of the edges are wrong. */
    paint_background(&f);
    run_batch(&f, FX_DATA + PITCH, COLOUR);
    res = colorblt_check(surface(&f), W, H, &r, COLOUR, NULL, NULL);
    assert_int_equal(res.wrong_inside, r.x2 - r.x1);  /* the first row */
    assert_int_equal(res.wrong_outside, r.x2 - r.x1); /* the row under it */

    /* Nothing ran: the background is all there is. */
    paint_background(&f);
    res = colorblt_check(surface(&f), W, H, &r, COLOUR, NULL, NULL);
    assert_int_equal(res.wrong_inside, inside);
    fx_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_paints_what_the_check_expects),
        cmocka_unit_test(test_check_catches_wrong_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
