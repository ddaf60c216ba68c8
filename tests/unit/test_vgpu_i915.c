/* The vGPU and the GPU it drives, checked against what i915 and GVT-g do, on the host with the
 * software model:
 *  - every shadow context starts from the blitter's default image, recorded from the engine;
 *  - what the vGPU submits: the descriptor (PRIVILEGE) and the breadcrumb (MI_FLUSH_DW);
 *  - a guest GGTT write that reaches the live GGTT is followed by the GGTT invalidate;
 *  - the guest's context status pointer as GVT-g emulates it;
 *  - BCS_SWCTRL is per context, so guests may load it. */
#include "test_vgpu_fixture.h"

#include "vmm/vgpu/core/vgpu_internal.h"

/* ---- a shim between the vGPU and the model that records the descriptors submitted ---- */

static struct igpu shim;
static const struct igpu_ops *real_ops;
static uint64_t last_desc0;
static unsigned n_submits;

static int shim_elsp_submit(void *be, enum igpu_engine e, uint64_t d0, uint64_t d1)
{
    last_desc0 = d0;
    n_submits++;
    return real_ops->elsp_submit(be, e, d0, d1);
}

static struct fx *fx_create_shimmed(void)
{
    static struct igpu_ops ops;
    struct fx *f = fx_create(NULL);
    real_ops = f->igpu->ops;
    ops = *real_ops;
    ops.elsp_submit = shim_elsp_submit;
    shim = *f->igpu;
    shim.ops = &ops;
    f->dev->cfg.igpu = &shim;
    n_submits = 0;
    return f;
}

static const uint8_t *host_ptr(struct fx *f, uint64_t gm)
{
    return fx_ptr(f, f->host_pa + (gm - f->layout.host.start));
}

static uint32_t host_rd(struct fx *f, uint64_t gm)
{
    uint32_t v;
    memcpy(&v, host_ptr(f, gm), 4);
    return v;
}

/* ---- contexts ---- */

static void shadow_contexts_start_from_the_recorded_default(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    const struct gen9_lrc_layout *l = igpu_lrc_layout(IGPU_BCS);
    for (unsigned g = 0; g < FX_GUESTS; g++) {
        const struct vgpu *v = fx_v(f, g);
        uint64_t st = v->ctx_gm + GEN9_LRC_STATE_OFFSET;
        /* the whole layout, as the engine saved it and i915's set_offsets() rewrites it */
        for (unsigned k = 0; k < GEN9_LRC_BLOCKS; k++)
            assert_int_equal(host_rd(f, st + 4u * l->block[k].header) & ~GEN9_MI_LRI_FORCE_POSTED,
                             GEN9_MI_LOAD_REGISTER_IMM(l->block[k].count));
        for (unsigned i = 0; i < GEN9_LRC_REGS; i++)
            assert_int_equal(host_rd(f, st + 4u * (gen9_lrc_value_dw(l, i) - 1u)),
                             GEN9_BCS_BASE + l->reg[i]);
        /* restore allowed (there is a default image), INHIBIT_SYN_CTX_SWITCH set, RS cleared */
        assert_int_equal(host_rd(f, st + 4u * GEN9_CTX_CONTEXT_CONTROL), 0x000F0008u);
        /* the engine's reset state: GPRs zero, BCS_SWCTRL clear (saved with its mask) */
        for (unsigned i = 0; i < 32; i++)
            assert_int_equal(host_rd(f, st + 4u * (GEN9_CTX_GPR0 + 2u * i)), 0);
        assert_int_equal(host_rd(f, st + 4u * GEN9_CTX_BCS_SWCTRL) & 0xFFFFu, 0);
        assert_int_equal(host_rd(f, st + 4u * GEN9_CTX_RING_START), (uint32_t)v->ring_gm);
        /* the default image itself came back from the engine with the layout */
        assert_int_equal(f->dev->default_state[GEN9_CTX_LRI_HEADER_3] & ~GEN9_MI_LRI_FORCE_POSTED,
                         GEN9_MI_LOAD_REGISTER_IMM(44));
    }
    fx_destroy(f);
}

static void descriptor_and_breadcrumb_are_i915s(void **state)
{
    (void)state;
    struct fx *f = fx_create_shimmed();
    fx_guest_setup(f, 0);
    uint32_t c[8];
    unsigned n = fx_fill(c, f->g[0].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, 0x00102030);
    fx_submit(f, 0, c, n);
    fx_run_until_retired(f, 0);
    assert_int_equal(n_submits, 1);
    const struct vgpu *v = fx_v(f, 0);
    /* i915 lrc_descriptor(): VALID | PRIVILEGE | legacy 32-bit addressing, LRCA, context id */
    assert_int_equal(last_desc0 & 0xFFF,
                     GEN9_CTX_VALID | GEN9_CTX_PRIVILEGE |
                         (GEN9_CTX_ADDR_LEGACY_32B << GEN9_CTX_ADDRESSING_MODE_SHIFT));
    assert_int_equal(gen9_ctx_desc_lrca(last_desc0), (uint32_t)v->ctx_gm);
    assert_int_equal(gen9_ctx_desc_id(last_desc0), 1);
    /* i915 gen8_emit_ggtt_write(): the breadcrumb after the workload is an MI_FLUSH_DW with a
     * post-sync dword store to a GGTT address with bit 5 clear */
    unsigned slice = n + 4u + ((n + 4u) & 1u); /* the guest's commands, SDI, padding */
    uint64_t crumb = v->ring_gm + 4u * slice;
    assert_int_equal(host_rd(f, crumb), GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_STOREDW);
    uint32_t lo = host_rd(f, crumb + 4);
    assert_true(lo & GEN9_MI_FLUSH_DW_USE_GTT);
    assert_int_equal(lo & GEN9_MI_FLUSH_DW_ADDR_MBZ, 0);
    assert_int_equal(lo & ~GEN9_MI_FLUSH_DW_ADDR_MASK, GEN9_MI_FLUSH_DW_USE_GTT);
    assert_int_equal(host_rd(f, crumb + 12), 1); /* the workload's id */
    fx_destroy(f);
}

/* ---- GGTT invalidation ---- */

/* The running vGPU remaps one of its pages: its next blit must go to the new page, not to the
 * translation the GPU still had cached (i915 gen8_ggtt_insert_page() -> ggtt->invalidate()). */
static void forwarded_ggtt_write_is_invalidated(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    fx_guest_setup(f, 0);
    uint64_t old_gpa, new_gpa;
    uint64_t gm = fx_gm_alloc(f, 0, 1, &old_gpa);
    uint32_t c[8];
    unsigned n = fx_fill(c, gm, 1024, 256, 4, 0x11111111);
    fx_submit(f, 0, c, n);
    fx_run_until_retired(f, 0);
    assert_int_equal(fx_rd(f, 0, gm), 0x11111111);
    /* remap gm to a fresh page while vGPU 0 still owns its entries */
    fx_gm_alloc(f, 0, 1, &new_gpa);
    assert_true(vgpu_mmio_write(fx_v(f, 0), VGPU_GGTT_OFFSET + (gm >> 12) * 8, 8,
                                new_gpa | GEN9_GGTT_PTE_PRESENT));
    assert_int_equal(gtt_vgpu_get(&f->gtt, 0)->st.writes_forwarded > 0, 1);
    n = fx_fill(c, gm, 1024, 256, 4, 0x22222222);
    fx_submit(f, 0, c, n);
    fx_run_until_retired(f, 0);
    uint32_t got_new, got_old;
    memcpy(&got_new, fx_gpa(f, 0, new_gpa), 4);
    memcpy(&got_old, fx_gpa(f, 0, old_gpa), 4);
    assert_int_equal(got_new, 0x22222222);
    assert_int_equal(got_old, 0x11111111);
    fx_destroy(f);
}

/* ---- the guest's context status pointer ---- */

static void csb_pointer_is_gvts(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    uint32_t ptr = GEN9_RING_CSB_PTR(GEN9_BCS_BASE);
    fx_guest_setup(f, 0);
    /* GVT-g init_vgpu_execlist(): write pointer 7 ("none yet"), read pointer 0 */
    assert_int_equal(fx_r(f, 0, ptr, 4), GEN9_CSB_PTR_RESET);
    uint32_t c[8];
    unsigned n = fx_fill(c, f->g[0].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, 1);
    fx_submit(f, 0, c, n);
    fx_run_until_retired(f, 0);
    assert_int_equal(fx_r(f, 0, ptr, 4) & GEN9_CSB_PTR_MASK, 0); /* first event: entry 0 */
    assert_int_equal(fx_rd(f, 0, f->g[0].hwsp + 4 * GEN9_HWS_CSB_WRITE_INDEX), 0);
    /* i915 reset_csb_pointers(): both pointers to 5, masked; the next event lands in 0 */
    fx_w32(f, 0, ptr, 0xFFFF0505u);
    assert_int_equal(fx_r(f, 0, ptr, 4), 0x0505);
    fx_submit(f, 0, c, n);
    fx_run_until_retired(f, 0);
    assert_int_equal(fx_r(f, 0, ptr, 4), 0x0500);
    assert_int_equal(fx_rd(f, 0, f->g[0].hwsp + 4 * GEN9_HWS_CSB_BUF0_INDEX) &
                         GEN9_CTX_STATUS_COMPLETE,
                     GEN9_CTX_STATUS_COMPLETE);
    /* a write without mask bits changes nothing */
    fx_w32(f, 0, ptr, 0x0303);
    assert_int_equal(fx_r(f, 0, ptr, 4), 0x0500);
    fx_destroy(f);
}

/* ---- the timestamp rate the guest is told ---- */

static void ctc_mode_says_the_timestamp_rate(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    uint32_t ctc = (uint32_t)fx_r(f, 0, GEN9_CTC_MODE, 4);
    uint32_t ovr = (uint32_t)fx_r(f, 0, GEN9_TIMESTAMP_OVERRIDE, 4);
    assert_int_equal(gen9_cs_timestamp_hz(ctc, ovr), f->igpu->info.timestamp_hz);
    assert_int_equal(gen9_cs_timestamp_hz(ctc, ovr), IGPU_MODEL_TIMESTAMP_HZ);
    /* RING_TIMESTAMP counts at that rate: 1 ms of render clock is rate / 1000 ticks */
    uint32_t t0 = (uint32_t)fx_r(f, 0, GEN9_RING_TIMESTAMP(GEN9_BCS_BASE), 4);
    igpu_model_advance(f->model, 1000000);
    uint32_t t1 = (uint32_t)fx_r(f, 0, GEN9_RING_TIMESTAMP(GEN9_BCS_BASE), 4);
    assert_true(t1 - t0 >= IGPU_MODEL_TIMESTAMP_HZ / 1000 - 1 &&
                t1 - t0 <= IGPU_MODEL_TIMESTAMP_HZ / 1000 + 1);
    fx_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shadow_contexts_start_from_the_recorded_default),
        cmocka_unit_test(descriptor_and_breadcrumb_are_i915s),
        cmocka_unit_test(forwarded_ggtt_write_is_invalidated),
        cmocka_unit_test(csb_pointer_is_gvts),
        cmocka_unit_test(ctc_mode_says_the_timestamp_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
