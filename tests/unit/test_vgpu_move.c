/* Re-placement and writing ahead on the whole stack: a guest that follows
 * re-placements is moved away from a busy neighbour while it keeps drawing the right picture,
 * nothing of it moves while its work is queued, guests that do not follow are left alone, and
 * the next owner in the scheduler's order is written ahead. */
#include "test_vgpu_fixture.h"

#include "vmm/vgpu/core/vgpu_internal.h" /* vgpu_pv_update_ranges, to set up an overlap */

#define MOVE_OFF(f) (VGT_PVINFO_PAGE + TESSERA_MOVE_OFFSET + offsetof(struct tessera_move_if, f))

static uint32_t move_field(struct fx *f, unsigned g, uint32_t off)
{
    return (uint32_t)fx_r(f, g, off, 4);
}

/* Puts guest b's low window onto guest a's (plus `shift` bytes) before either draws: the two
 * share graphics memory, as the initial placement does when there are many guests. */
static void overlap(struct fx *f, unsigned a, unsigned b, uint64_t shift)
{
    const struct gtt_vgpu *va = gtt_vgpu_get(&f->gtt, a), *vb = gtt_vgpu_get(&f->gtt, b);
    unsigned first;
    gtt_vgpu_slots(&f->gtt, b, &first, 1);
    struct gtt_range to = { va->low.start + shift, vb->low.size };
    assert_int_equal(gtt_vgpu_relocate(&f->gtt, b, to, first), 0);
    vgpu_pv_update_ranges(fx_v(f, b));
    f->g[b].gm = to.start;
}

/* Two guests whose low windows overlap (guest 1's onto guest 0's), set up to draw; guest 1
 * follows moves if `follows`. */
static struct fx *overlapping_pair(bool follows)
{
    struct fx *f = fx_create(NULL);
    overlap(f, 0, 1, 0);
    for (unsigned g = 0; g < 2; g++)
        fx_guest_setup(f, g);
    if (follows)
        fx_w32(f, 1, VGT_PVINFO_PAGE + TESSERA_MOVE_OFFSET + offsetof(struct tessera_move_if, caps),
               TESSERA_MOVE_CAP_FOLLOW);
    return f;
}

static void plane_on(struct fx *f, unsigned g)
{
    fx_w32(f, g, GEN9_PLANE_STRIDE_1_A, FX_FB_W * 4 / GEN9_PLANE_STRIDE_UNIT);
    fx_w32(f, g, GEN9_PLANE_SIZE_1_A,
           (FX_FB_H - 1) << GEN9_PLANE_SIZE_HEIGHT_SHIFT | (FX_FB_W - 1));
    fx_w32(f, g, GEN9_PLANE_CTL_1_A, GEN9_PLANE_CTL_ENABLE | GEN9_PLANE_CTL_FORMAT_XRGB_8888);
    fx_w32(f, g, GEN9_PLANE_SURF_1_A, (uint32_t)f->g[g].fb);
}

static void frame(struct fx *f, unsigned g, uint32_t colour)
{
    uint32_t c[16];
    unsigned n = fx_fill(c, f->g[g].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, colour);
    uint32_t seq = fx_submit(f, g, c, n);
    fx_run_until_retired(f, g);
    assert_int_equal(fx_rd(f, g, f->g[g].seq), seq);
}

/* What the wall shows of guest g: every pixel of its plane, read through its own entries. */
static bool shows(struct fx *f, unsigned g, uint32_t colour)
{
    struct vgpu_plane p;
    if (!vgpu_plane_get(fx_v(f, g), &p))
        return false;
    for (unsigned y = 0; y < p.height; y++)
        for (unsigned x = 0; x < p.width; x++) {
            uint32_t px;
            if (!vgpu_gm_read(fx_v(f, g), p.gm + (uint64_t)y * p.stride + 4ull * x, &px, 4) ||
                (px & 0xFFFFFF) != colour)
                return false;
        }
    return true;
}

/* The test guest's side of docs/vgpu-abi.md "Re-placement": nothing in flight, MOVE_READY,
 * then every address it holds moves with its range.  Returns the status. */
static uint32_t follow(struct fx *f, unsigned g)
{
    struct fx_guest *q = &f->g[g];
    uint64_t old = fx_r(f, g, FX_PV(avail_rs.mappable_gmadr.base), 4);
    fx_w32(f, g, VGT_PVINFO_PAGE + offsetof(struct vgt_if, g2v_notify), TESSERA_G2V_MOVE_READY);
    uint32_t st = move_field(f, g, MOVE_OFF(status));
    assert_int_equal(move_field(f, g, MOVE_OFF(done)), move_field(f, g, MOVE_OFF(request)));
    if (st != TESSERA_MOVE_MOVED)
        return st;
    uint64_t now = fx_r(f, g, FX_PV(avail_rs.mappable_gmadr.base), 4);
    uint64_t *addr[] = { &q->gm, &q->lrca, &q->ring, &q->fb, &q->seq, &q->hwsp };
    for (unsigned i = 0; i < sizeof addr / sizeof addr[0]; i++)
        *addr[i] = *addr[i] - old + now;
    /* The wall never looked at the old place: the plane followed during the move. */
    struct vgpu_plane p;
    if (vgpu_plane_get(fx_v(f, g), &p))
        assert_int_equal(p.gm, q->fb);
    fx_wr(f, g, q->lrca + 4096 + 4 * GEN9_CTX_RING_START, (uint32_t)q->ring);
    fx_w32(f, g, GEN9_RING_HWS_PGA(GEN9_BCS_BASE), (uint32_t)q->hwsp);
    fx_w32(f, g, GEN9_PLANE_SURF_1_A, (uint32_t)q->fb);
    return st;
}

static void moved_guest_keeps_drawing(void **state)
{
    (void)state;
    struct fx *f = overlapping_pair(true); /* guest 1 follows moves */
    for (unsigned g = 0; g < 2; g++)
        plane_on(f, g);
    /* Both draw in turn: sharing the window, every switch copies it. */
    for (unsigned k = 0; k < 3; k++) {
        frame(f, 0, 0x00AA0000 + k);
        frame(f, 1, 0x0000BB00 + k);
    }
    assert_true(shows(f, 0, 0x00AA0002));
    assert_true(shows(f, 1, 0x0000BB02));
    struct vgpu_render_stats rs;
    vgpu_render_stats_get(f->dev, &rs);
    uint64_t per_switch_before = rs.entries_switch / rs.switches;
    assert_true(per_switch_before >= 4096);

    vgpu_place_period(f->dev);
    assert_int_equal(move_field(f, 1, MOVE_OFF(request)), 1);
    assert_int_equal(move_field(f, 0, MOVE_OFF(request)), 0); /* it does not follow */
    uint64_t old_low = fx_r(f, 1, FX_PV(avail_rs.mappable_gmadr.base), 4), old_fb = f->g[1].fb;
    uint32_t gen = (uint32_t)fx_r(f, 1,
                                  VGT_PVINFO_PAGE + TESSERA_BALLOON_OFFSET +
                                      offsetof(struct tessera_balloon_if, generation),
                                  4);
    assert_int_equal(follow(f, 1), TESSERA_MOVE_MOVED);
    uint64_t new_low = fx_r(f, 1, FX_PV(avail_rs.mappable_gmadr.base), 4);
    assert_int_not_equal(new_low, old_low);
    assert_int_equal(fx_r(f, 1,
                          VGT_PVINFO_PAGE + TESSERA_BALLOON_OFFSET +
                              offsetof(struct tessera_balloon_if, generation),
                          4),
                     gen + 1);
    assert_int_equal(move_field(f, 1, MOVE_OFF(moves)), 1);
    /* The windows are apart now; what it drew before is still its picture at the new place. */
    const struct gtt_vgpu *v0 = gtt_vgpu_get(&f->gtt, 0), *v1 = gtt_vgpu_get(&f->gtt, 1);
    assert_true(v1->low.start >= v0->low.start + v0->low.size ||
                v0->low.start >= v1->low.start + v1->low.size);
    assert_true(shows(f, 1, 0x0000BB02));
    assert_true(shows(f, 0, 0x00AA0002));

    /* It keeps drawing, at its new addresses; so does its neighbour. */
    for (unsigned k = 3; k < 6; k++) {
        frame(f, 0, 0x00AA0000 + k);
        frame(f, 1, 0x0000BB00 + k);
    }
    assert_true(shows(f, 1, 0x0000BB05));
    assert_true(shows(f, 0, 0x00AA0005));
    /* A busy set that fits side by side is not copied any more. */
    vgpu_render_stats_get(f->dev, &rs);
    uint64_t sw0 = rs.switches, e0 = rs.entries_switch + rs.entries_predict;
    for (unsigned k = 6; k < 10; k++) {
        frame(f, 0, 0x00AA0000 + k);
        frame(f, 1, 0x0000BB00 + k);
    }
    vgpu_render_stats_get(f->dev, &rs);
    assert_true(rs.switches >= sw0 + 8);
    assert_int_equal(rs.entries_switch + rs.entries_predict, e0);

    /* Its old addresses are not its any more: the scanner refuses them. */
    uint32_t c[16];
    unsigned n = fx_fill(c, old_fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, 0x00FFFFFF);
    fx_submit(f, 1, c, n);
    fx_run_until_retired(f, 1);
    struct tessera_balloon_if b;
    assert_int_equal(fx_ext(f, 1, &b)->last_reject, IGPU_SCAN_E_ADDR_RANGE);
    assert_true(shows(f, 0, 0x00AA0009));
    assert_true(shows(f, 1, 0x0000BB09));
    /* Nothing more to plan. */
    vgpu_place_period(f->dev);
    assert_int_equal(move_field(f, 1, MOVE_OFF(request)), 1);
    vgpu_render_stats_get(f->dev, &rs);
    assert_int_equal(rs.moves_asked, 1);
    assert_int_equal(rs.moves_done, 1);
    assert_true(rs.entries_move > 0);
    fx_destroy(f);
}

/* Queued work was scanned against the old addresses: the vGPU answers "busy" and moves
 * nothing until it has run; then the move happens. */
static void no_move_under_queued_work(void **state)
{
    (void)state;
    struct fx *f = overlapping_pair(true);
    frame(f, 0, 1);
    frame(f, 1, 2);
    vgpu_place_period(f->dev);
    assert_int_equal(move_field(f, 1, MOVE_OFF(request)), 1);
    uint32_t c[16];
    unsigned n = fx_fill(c, f->g[1].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, 0x00445566);
    fx_submit(f, 1, c, n); /* queued, not run */
    uint64_t low = fx_r(f, 1, FX_PV(avail_rs.mappable_gmadr.base), 4);
    assert_int_equal(follow(f, 1), TESSERA_MOVE_BUSY);
    assert_int_equal(fx_r(f, 1, FX_PV(avail_rs.mappable_gmadr.base), 4), low);
    fx_run_until_retired(f, 1);
    assert_int_equal(fx_rd(f, 1, f->g[1].fb), 0x00445566); /* it ran, where it was */
    assert_int_equal(follow(f, 1), TESSERA_MOVE_MOVED);
    assert_int_not_equal(fx_r(f, 1, FX_PV(avail_rs.mappable_gmadr.base), 4), low);
    frame(f, 1, 0x00778899);
    assert_int_equal(fx_rd(f, 1, f->g[1].fb), 0x00778899);
    /* Asked again with nothing pending: nothing to do. */
    assert_int_equal(follow(f, 1), TESSERA_MOVE_NOT_NEEDED);
    fx_destroy(f);
}

/* A guest that did not say it follows re-placements is never asked (an unmodified i915 guest
 * holds graphics addresses the hypervisor cannot see). */
static void guests_that_do_not_follow_stay(void **state)
{
    (void)state;
    struct fx *f = overlapping_pair(false);
    for (unsigned k = 0; k < 3; k++) {
        frame(f, 0, k);
        frame(f, 1, k);
    }
    vgpu_place_period(f->dev);
    assert_int_equal(move_field(f, 0, MOVE_OFF(request)), 0);
    assert_int_equal(move_field(f, 1, MOVE_OFF(request)), 0);
    assert_int_equal(move_field(f, 1, MOVE_OFF(magic)), TESSERA_MOVE_MAGIC);
    /* caps is the only field of the extension a guest may write */
    assert_true(vgpu_mmio_write(fx_v(f, 1), MOVE_OFF(request), 4, 7));
    assert_int_equal(move_field(f, 1, MOVE_OFF(request)), 0);
    fx_destroy(f);
}

/* Guest g draws and follows every request, for as many placement periods as it takes a moved
 * guest to be movable again. */
static void settle(struct fx *f, unsigned g, uint32_t colour)
{
    for (unsigned k = 0; k < 14; k++) {
        frame(f, g, colour);
        vgpu_place_period(f->dev);
        if (move_field(f, g, MOVE_OFF(request)) != move_field(f, g, MOVE_OFF(done)))
            assert_int_not_equal(follow(f, g), TESSERA_MOVE_BUSY);
    }
}

/* A guest that says it uses 300 KiB of its 16 MiB window is given 2 MiB (what it uses, a
 * quarter more, at least 1 MiB more, in whole MiB); when it says it needs more, the window
 * grows back; a restart gives it the configured window again. */
static void compaction_and_growth(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    for (unsigned g = 0; g < 2; g++) {
        fx_guest_setup(f, g);
        plane_on(f, g);
    }
    fx_w32(f, 1, MOVE_OFF(caps), TESSERA_MOVE_CAP_FOLLOW);
    fx_w32(f, 1, MOVE_OFF(low_used), 300 << 10);
    frame(f, 0, 1);
    frame(f, 1, 0x00111111);
    vgpu_place_period(f->dev);
    assert_int_equal(move_field(f, 1, MOVE_OFF(request)), 1);
    assert_int_equal(follow(f, 1), TESSERA_MOVE_MOVED);
    assert_int_equal(fx_r(f, 1, FX_PV(avail_rs.mappable_gmadr.size), 4), 2u << 20);
    assert_true(shows(f, 1, 0x00111111));
    frame(f, 1, 0x00222222);
    assert_true(shows(f, 1, 0x00222222));
    /* Below what it mapped it is never cut, whatever it says. */
    fx_w32(f, 1, MOVE_OFF(low_used), 4096);
    settle(f, 1, 0x00222222);
    assert_true(gtt_vgpu_low_extent(&f->gtt, 1) <=
                fx_r(f, 1, FX_PV(avail_rs.mappable_gmadr.size), 4));
    assert_true(fx_r(f, 1, FX_PV(avail_rs.mappable_gmadr.size), 4) >= 1u << 20);
    assert_true(shows(f, 1, 0x00222222));
    /* It needs 5 MiB: the window grows (5 MiB and a quarter, 7 MiB in whole MiB). */
    fx_w32(f, 1, MOVE_OFF(low_used), 5u << 20);
    settle(f, 1, 0x00333333);
    assert_int_equal(fx_r(f, 1, FX_PV(avail_rs.mappable_gmadr.size), 4), 7u << 20);
    frame(f, 1, 0x00444444);
    assert_true(shows(f, 1, 0x00444444));
    /* A new run of the guest: the configuration's window again, and no request pending. */
    vgpu_guest_reset(fx_v(f, 1));
    assert_int_equal(fx_r(f, 1, FX_PV(avail_rs.mappable_gmadr.base), 4),
                     f->layout.guest[1].low.start);
    assert_int_equal(fx_r(f, 1, FX_PV(avail_rs.mappable_gmadr.size), 4),
                     f->layout.guest[1].low.size);
    assert_int_equal(move_field(f, 1, MOVE_OFF(caps)), 0);
    assert_int_equal(move_field(f, 1, MOVE_OFF(request)), move_field(f, 1, MOVE_OFF(done)));
    fx_destroy(f);
}

/* Half of guest 1's window lies under guest 0's: while guest 0 draws, the other half is
 * written ahead for guest 1, which the scheduler runs next, and the switch uses it. */
static void next_owner_written_ahead(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    overlap(f, 0, 1, 8ull << 20);
    for (unsigned g = 0; g < 2; g++)
        fx_guest_setup(f, g);
    uint32_t c[16];
    for (unsigned k = 0; k < 8; k++) {
        /* Both queue a frame; the scheduler runs one, then the other. */
        unsigned n0 = fx_fill(c, f->g[0].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, 0x100 + k);
        fx_submit(f, 0, c, n0);
        unsigned n1 = fx_fill(c, f->g[1].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, 0x200 + k);
        fx_submit(f, 1, c, n1);
        fx_run_until_retired(f, 0);
        fx_run_until_retired(f, 1);
    }
    struct vgpu_render_stats rs;
    vgpu_render_stats_get(f->dev, &rs);
    assert_true(rs.entries_predict >= 2048); /* half a 16 MiB window, at least once */
    assert_true(rs.ahead_used > 0);
    assert_true(rs.ahead_used >= rs.ahead_wasted);
    assert_int_equal(fx_rd(f, 0, f->g[0].fb), 0x107);
    assert_int_equal(fx_rd(f, 1, f->g[1].fb), 0x207);
    fx_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(moved_guest_keeps_drawing),
        cmocka_unit_test(no_move_under_queued_work),
        cmocka_unit_test(guests_that_do_not_follow_stay),
        cmocka_unit_test(compaction_and_growth),
        cmocka_unit_test(next_owner_written_ahead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
