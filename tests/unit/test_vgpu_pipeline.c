/* The mediated vGPU end to end on the host: BAR0 emulation, execlist shadowing and scanning,
 * the render loop on the software model, fairness, the watchdog, ballooning and isolation. */
#include "test_vgpu_fixture.h"

static uint32_t fb_pixel(struct fx *f, unsigned g, unsigned x, unsigned y)
{
    return fx_rd(f, g, f->g[g].fb + (uint64_t)y * FX_FB_W * 4 + x * 4);
}

static void pv_page_is_i915s(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    assert_int_equal(fx_r(f, 1, VGT_PVINFO_PAGE, 8), VGT_MAGIC);
    assert_int_equal(fx_r(f, 1, VGT_PVINFO_PAGE + 8, 2), 1);
    assert_int_equal(fx_r(f, 1, FX_PV(vgt_id), 4), 1);
    uint32_t low_base = (uint32_t)fx_r(f, 1, FX_PV(avail_rs.mappable_gmadr.base), 4);
    uint32_t low_size = (uint32_t)fx_r(f, 1, FX_PV(avail_rs.mappable_gmadr.size), 4);
    assert_int_equal(low_base, f->layout.guest[1].low.start);
    assert_int_equal(low_size, f->layout.guest[1].low.size);
    assert_int_equal(fx_r(f, 1, FX_PV(avail_rs.nonmappable_gmadr.size), 4),
                     (uint64_t)f->layout.guest[1].n_slots * f->layout.slot_bytes);
    struct tessera_balloon_if b;
    assert_int_equal(fx_ext(f, 1, &b)->magic, TESSERA_BALLOON_MAGIC);
    /* read-only fields stay */
    assert_true(vgpu_mmio_write(fx_v(f, 1), FX_PV(avail_rs.mappable_gmadr.base), 4, 0));
    assert_int_equal(fx_r(f, 1, FX_PV(avail_rs.mappable_gmadr.base), 4), low_base);
    /* PIPESRC is the tile */
    assert_int_equal(fx_r(f, 1, GEN9_PIPESRC_A, 4), (FX_FB_W - 1) << 16 | (FX_FB_H - 1));
    /* forcewake acks follow requests */
    fx_w32(f, 1, GEN9_FORCEWAKE_GT, 0x00010001);
    assert_int_equal(fx_r(f, 1, GEN9_FORCEWAKE_ACK_GT, 4) & 1, 1);
    fx_destroy(f);
}

static void fill_renders_and_retires(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    fx_guest_setup(f, 0);
    uint32_t c[16];
    unsigned n = fx_fill(c, f->g[0].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, 0x00336699);
    uint32_t seq = fx_submit(f, 0, c, n);
    assert_true(vgpu_render_step(f->dev));
    assert_int_equal(vgpu_render_owner(f->dev), 0); /* its work is on the engine */
    fx_run_until_retired(f, 0);
    assert_int_equal(fx_rd(f, 0, f->g[0].seq), seq);
    assert_int_equal(fb_pixel(f, 0, 0, 0), 0x00336699);
    assert_int_equal(fb_pixel(f, 0, FX_FB_W - 1, FX_FB_H - 1), 0x00336699);
    struct tessera_balloon_if b;
    fx_ext(f, 0, &b);
    assert_int_equal(b.submitted, 1);
    assert_int_equal(b.completed, 1);
    /* Its latency is measured on the host clock (each reading 1 us later): it waited from its
     * submission to its dispatch, and longer to its retirement; the model's CPU is its own. */
    struct vgpu_info in;
    vgpu_get_info(fx_v(f, 0), &in);
    assert_int_equal(in.st.timed, 1);
    assert_true(in.st.wait_ns > 0 && in.st.turnaround_ns > in.st.wait_ns);
    assert_true(in.st.render_cpu_ns > 0);
    assert_int_equal(vgpu_render_retired(f->dev), 1);
    /* ... and so is the switch that brought its entries in: the host loop charges both to guest
     * 0's CPU share; nothing is on the engine now. */
    assert_true(in.st.copy_cpu_ns > 0);
    assert_int_equal(vgpu_render_cpu_ns(f->dev, 0), in.st.render_cpu_ns + in.st.copy_cpu_ns);
    assert_int_equal(vgpu_render_cpu_ns(f->dev, 1), 0);
    assert_int_equal(vgpu_render_owner(f->dev), VGPU_MAX);
    assert_int_equal(b.rejected, 0);
    /* the completion reached the status page and the interrupt bits */
    assert_int_equal(fx_rd(f, 0, f->g[0].hwsp + 4 * GEN9_HWS_CSB_BUF0_INDEX) &
                         GEN9_CTX_STATUS_COMPLETE,
                     GEN9_CTX_STATUS_COMPLETE);
    assert_true(fx_r(f, 0, GEN9_GT_IIR(0), 4) & (GEN9_GT_CONTEXT_SWITCH << GEN9_GT_BCS_IRQ_SHIFT));
    fx_destroy(f);
}

static void blit_outside_is_refused(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    fx_guest_setup(f, 0);
    fx_guest_setup(f, 1);
    uint32_t c[16];
    unsigned n = fx_fill(c, f->g[1].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H,
                         0x00FF0000); /* guest 1's fb */
    fx_submit(f, 0, c, n);
    fx_run_until_retired(f, 0);
    assert_int_not_equal(fx_rd(f, 0, f->g[0].seq), f->g[0].seqno);
    struct tessera_balloon_if b;
    fx_ext(f, 0, &b);
    assert_int_equal(b.rejected, 1);
    assert_int_equal(b.last_reject, IGPU_SCAN_E_ADDR_RANGE);
    assert_int_equal(fb_pixel(f, 1, 0, 0), 0);
    struct vgpu_info info;
    vgpu_get_info(fx_v(f, 0), &info);
    assert_int_equal(info.n_rejects, 1);
    assert_non_null(strstr(info.rejects[0].why, "outside"));
    /* and the guest still works afterwards */
    n = fx_fill(c, f->g[0].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, 0x00123456);
    fx_submit(f, 0, c, n);
    fx_run_until_retired(f, 0);
    assert_int_equal(fb_pixel(f, 0, 3, 3), 0x00123456);
    fx_destroy(f);
}

static void lri_forbidden_is_refused(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    fx_guest_setup(f, 0);
    uint32_t c[4] = { GEN9_MI_INSTR(GEN9_MI_LOAD_REGISTER_IMM_OP, 1), GEN9_GDRST, GEN9_GRDOM_FULL,
                      GEN9_MI_NOOP };
    fx_submit(f, 0, c, 4);
    fx_run_until_retired(f, 0);
    struct tessera_balloon_if b;
    assert_int_equal(fx_ext(f, 0, &b)->last_reject, IGPU_SCAN_E_REG_DENIED);
    fx_destroy(f);
}

static void ggtt_foreign_targets_are_refused(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    uint64_t idx = f->layout.guest[0].low.start >> 12;
    /* a page beyond its RAM */
    assert_true(vgpu_mmio_write(fx_v(f, 0), VGPU_GGTT_OFFSET + idx * 8, 8, FX_GUEST_RAM | 1));
    /* an entry outside its ranges (guest 1's window) */
    uint64_t other = f->layout.guest[1].low.start >> 12;
    assert_true(vgpu_mmio_write(fx_v(f, 0), VGPU_GGTT_OFFSET + other * 8, 8, 0x100000 | 1));
    struct tessera_balloon_if b;
    assert_int_equal(fx_ext(f, 0, &b)->ggtt_refused, 2);
    assert_int_equal(fx_r(f, 0, VGPU_GGTT_OFFSET + idx * 8, 8), 0);
    /* a dword pair write (low, then high) is one entry */
    assert_true(vgpu_mmio_write(fx_v(f, 0), VGPU_GGTT_OFFSET + idx * 8, 4, 0x200000 | 1));
    assert_true(vgpu_mmio_write(fx_v(f, 0), VGPU_GGTT_OFFSET + idx * 8 + 4, 4, 0));
    assert_int_equal(fx_r(f, 0, VGPU_GGTT_OFFSET + idx * 8, 8), 0x200001);
    fx_destroy(f);
}

static void fence_outside_window_is_refused(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    const struct gtt_range *w1 = &f->layout.guest[1].low;
    uint64_t bad = gtt_fence_encode(w1->start, 1 << 20, 4096, false, true);
    assert_true(vgpu_mmio_write(fx_v(f, 0), GEN9_FENCE_REG_LO(0), 8, bad));
    struct tessera_balloon_if b;
    assert_int_equal(fx_ext(f, 0, &b)->fence_refused, 1);
    const struct gtt_range *w0 = &f->layout.guest[0].low;
    uint64_t good = gtt_fence_encode(w0->start, 1 << 20, 4096, false, true);
    assert_true(vgpu_mmio_write(fx_v(f, 0), GEN9_FENCE_REG_LO(1), 8, good));
    assert_int_equal(fx_ext(f, 0, &b)->fence_refused, 1);
    assert_int_equal(fx_r(f, 0, GEN9_FENCE_REG_LO(1), 8), good);
    fx_destroy(f);
}

static void rcs_submission_is_refused(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    for (int i = 0; i < 4; i++)
        fx_w32(f, 0, GEN9_RING_ELSP(GEN9_RCS_BASE), 0);
    struct tessera_balloon_if b;
    assert_int_equal(fx_ext(f, 0, &b)->last_reject, TESSERA_REJECT_ENGINE);
    fx_destroy(f);
}

/* Both guests keep their queues full of equal blits; GPU time follows the weights. */
static void shares_follow_weights(void **state)
{
    (void)state;
    static const uint32_t w[FX_GUESTS] = { 100, 300 };
    struct fx *f = fx_create(w);
    for (unsigned g = 0; g < FX_GUESTS; g++)
        fx_guest_setup(f, g);
    uint32_t c[16];
    for (unsigned step = 0; step < 20000; step++) {
        for (unsigned g = 0; g < FX_GUESTS; g++) {
            struct vgpu_info info;
            vgpu_get_info(fx_v(f, g), &info);
            if (info.queued < 6) {
                unsigned n = fx_fill(c, f->g[g].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, step);
                fx_submit(f, g, c, n);
            }
        }
        vgpu_render_step(f->dev);
    }
    struct vgpu_info a, b;
    vgpu_get_info(fx_v(f, 0), &a);
    vgpu_get_info(fx_v(f, 1), &b);
    assert_int_equal(a.st.rejected + b.st.rejected, 0);
    double share = (double)b.st.gpu_ns / (double)(a.st.gpu_ns + b.st.gpu_ns);
    assert_true(a.st.gpu_ns > 0);
    assert_true(share > 0.75 * 0.9 && share < 0.75 * 1.1);
    struct vgpu_render_stats rs;
    vgpu_render_stats_get(f->dev, &rs);
    assert_true(rs.switches > 10);
    /* Every bit of GGTT copying, on switches and ahead, was charged to the guest it was for. */
    assert_true(a.st.copy_cpu_ns > 0 && b.st.copy_cpu_ns > 0);
    assert_int_equal(a.st.copy_cpu_ns + b.st.copy_cpu_ns, rs.copy_cpu_ns);
    fx_destroy(f);
}

/* A legal but enormous workload: the watchdog resets its vGPU; the other keeps rendering. */
static void runaway_is_reset(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    fx_guest_setup(f, 0);
    fx_guest_setup(f, 1);
    /* A batch of 100 fills of 8 MiB each in its high graphics memory: little to scan, about
     * 50 ms of GPU time at the model's costs, over the 20 ms watchdog. */
    uint64_t batch = fx_gm_alloc(f, 0, 1, NULL);
    uint64_t high = f->layout.slots.start +
                    (uint64_t)f->layout.guest[0].first_slot * f->layout.slot_bytes;
    uint32_t c[16];
    uint64_t off = 0;
    for (unsigned i = 0; i < 100; i++) {
        unsigned n = fx_fill(c, high, 8192, 2048, 1024, i);
        for (unsigned k = 0; k < n; k++, off += 4)
            fx_wr(f, 0, batch + off, c[k]);
    }
    fx_wr(f, 0, batch + off, GEN9_MI_INSTR(GEN9_MI_BATCH_BUFFER_END_OP, 0));
    uint32_t bb[4] = { GEN9_MI_INSTR(GEN9_MI_BATCH_BUFFER_START_OP, 1), (uint32_t)batch, 0,
                       GEN9_MI_NOOP };
    fx_submit(f, 0, bb, 4);
    unsigned n = fx_fill(c, f->g[1].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, 0x00ABCDEF);
    fx_submit(f, 1, c, n);
    fx_run_until_retired(f, 0);
    fx_run_until_retired(f, 1);
    struct tessera_balloon_if b;
    fx_ext(f, 0, &b);
    assert_int_equal(b.resets, 1);
    assert_int_equal(b.last_reject, TESSERA_REJECT_RESET);
    fx_ext(f, 1, &b);
    assert_int_equal(b.resets, 0);
    assert_int_equal(b.completed, 1);
    assert_int_equal(fb_pixel(f, 1, 5, 5), 0x00ABCDEF);
    fx_destroy(f);
}

static void balloon_shrink_and_grow(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    fx_guest_setup(f, 0);
    struct tessera_balloon_if b;
    unsigned slots0 = fx_ext(f, 0, &b)->slots;
    uint32_t gen0 = b.generation;
    char err[80];
    assert_int_equal(vgpu_balloon_adjust(f->dev, 0, -1, err, sizeof err), 0);
    fx_ext(f, 0, &b);
    assert_int_equal(b.slots, slots0 - 1);
    assert_int_equal(b.generation, gen0 + 1);
    assert_int_equal(fx_r(f, 0, FX_PV(avail_rs.nonmappable_gmadr.size), 4),
                     (uint64_t)(slots0 - 1) * f->layout.slot_bytes);
    /* below the minimum is refused with a reason */
    assert_int_not_equal(vgpu_balloon_adjust(f->dev, 0, -8, err, sizeof err), 0);
    assert_true(strlen(err) > 0);
    /* a guest request for more is decided by the controller */
    assert_true(vgpu_mmio_write(fx_v(f, 0), VGT_PVINFO_PAGE + TESSERA_BALLOON_OFFSET + 4, 4, 1));
    assert_true(vgpu_mmio_write(fx_v(f, 0), FX_PV(g2v_notify), 4, TESSERA_G2V_BALLOON));
    struct gtt_ctl_params p;
    gtt_ctl_defaults(&p);
    struct gtt_ctl_report rep;
    assert_int_equal(vgpu_balloon_period(f->dev, &p, 0, 0, &rep), 0);
    fx_ext(f, 0, &b);
    assert_int_equal(b.status, TESSERA_BALLOON_GRANTED);
    assert_int_equal(b.slots, slots0);
    /* the guest still renders */
    uint32_t c[16];
    unsigned n = fx_fill(c, f->g[0].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, 0x00777777);
    fx_submit(f, 0, c, n);
    fx_run_until_retired(f, 0);
    assert_int_equal(fb_pixel(f, 0, 1, 1), 0x00777777);
    fx_destroy(f);
}

/* Queued work that touches only memory the vGPU keeps survives a shrink; work in a slot it
 * loses is dropped with the reason, and never reaches the GPU. */
static void shrink_rescans_queued_work(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    fx_guest_setup(f, 0);
    uint64_t high = f->layout.slots.start +
                    (uint64_t)f->layout.guest[0].first_slot * f->layout.slot_bytes;
    uint32_t c[16];
    unsigned n = fx_fill(c, high, 4096, 1024, 4, 0x11);
    fx_submit(f, 0, c, n);
    n = fx_fill(c, high + f->layout.slot_bytes, 4096, 1024, 4, 0x22);
    fx_submit(f, 0, c, n);
    n = fx_fill(c, f->g[0].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, 0x00445566);
    fx_submit(f, 0, c, n);
    char err[80];
    assert_int_equal(vgpu_balloon_adjust(f->dev, 0, -1, err, sizeof err), 0);
    fx_run_until_retired(f, 0);
    struct tessera_balloon_if b;
    fx_ext(f, 0, &b);
    struct vgpu_info info;
    vgpu_get_info(fx_v(f, 0), &info);
    assert_int_equal(info.n_rejects, 1);
    assert_non_null(strstr(info.rejects[0].why, "ballooned away"));
    assert_int_equal(b.rejected, 1);
    assert_int_equal(b.last_reject, TESSERA_REJECT_SHRUNK);
    assert_int_equal(b.completed, 2);
    assert_int_equal(fb_pixel(f, 0, 2, 2), 0x00445566);
    fx_destroy(f);
}

static void display_plane_is_reported(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    fx_guest_setup(f, 0);
    struct vgpu_plane p;
    assert_false(vgpu_plane_get(fx_v(f, 0), &p));
    fx_w32(f, 0, GEN9_PLANE_SURF_1_A, (uint32_t)f->g[0].fb);
    fx_w32(f, 0, GEN9_PLANE_STRIDE_1_A, FX_FB_W * 4 / 64);
    fx_w32(f, 0, GEN9_PLANE_SIZE_1_A, (FX_FB_H - 1) << 16 | (FX_FB_W - 1));
    fx_w32(f, 0, GEN9_PLANE_CTL_1_A, GEN9_PLANE_CTL_ENABLE | GEN9_PLANE_CTL_FORMAT_XRGB_8888);
    assert_true(vgpu_plane_get(fx_v(f, 0), &p));
    assert_int_equal(p.width, FX_FB_W);
    assert_int_equal(p.height, FX_FB_H);
    assert_int_equal(p.gm, f->g[0].fb);
    fx_wr(f, 0, f->g[0].fb + 8, 0x00C0FFEE);
    uint32_t px;
    assert_true(vgpu_gm_read(fx_v(f, 0), p.gm + 8, &px, 4));
    assert_int_equal(px, 0x00C0FFEE);
    fx_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pv_page_is_i915s),
        cmocka_unit_test(fill_renders_and_retires),
        cmocka_unit_test(blit_outside_is_refused),
        cmocka_unit_test(lri_forbidden_is_refused),
        cmocka_unit_test(ggtt_foreign_targets_are_refused),
        cmocka_unit_test(fence_outside_window_is_refused),
        cmocka_unit_test(rcs_submission_is_refused),
        cmocka_unit_test(shares_follow_weights),
        cmocka_unit_test(runaway_is_reset),
        cmocka_unit_test(balloon_shrink_and_grow),
        cmocka_unit_test(shrink_rescans_queued_work),
        cmocka_unit_test(display_plane_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
