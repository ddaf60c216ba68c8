/* BAR0 of the vGPU: the register half (a virtual register file with the rules of
 * docs/vgpu-abi.md, the PV info page) and the GGTT half.  Fence registers are vgpu_fence.c's. */
#include "vmm/vgpu/vgpu_internal.h"
#include "vmm/vgpu/vgpu_i915.h"

#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

#include <stddef.h>
#include <string.h>

#define BCS GEN9_BCS_BASE
#define RCS GEN9_RCS_BASE
/* A masked register: bits 31:16 say which of bits 15:0 the write changes. */
static uint32_t masked(uint32_t old, uint32_t val)
{
    uint32_t sel = val >> 16;
    return (old & ~sel) | (val & sel);
}

static uint32_t *other_reg(struct vgpu *v, uint32_t off, bool create)
{
    for (unsigned i = 0; i < v->n_other; i++)
        if (v->other[i].off == off)
            return &v->other[i].val;
    if (!create || v->n_other == VGPU_OTHER_REGS)
        return NULL;
    v->other[v->n_other] = (struct vgpu_other_reg){ off, 0 };
    return &v->other[v->n_other++].val;
}

static const uint32_t fw_req_reg[3] = { GEN9_FORCEWAKE_RENDER, GEN9_FORCEWAKE_GT, GEN9_FORCEWAKE_MEDIA };
static const uint32_t fw_ack_reg[3] = { GEN9_FORCEWAKE_ACK_RENDER, GEN9_FORCEWAKE_ACK_GT,
                                        GEN9_FORCEWAKE_ACK_MEDIA };

/* ---- the register file -------------------------------------------------------------------- */

static uint32_t reg_read(struct vgpu *v, uint32_t off)
{
    uint32_t x;
    if (v->i915 && vgpu_i915_reg_read(v, off, &x))
        return x;
    for (unsigned i = 0; i < 3; i++) {
        if (off == fw_req_reg[i])
            return v->fw_req[i];
        if (off == fw_ack_reg[i])
            return v->fw_req[i];        /* the domain wakes at once */
    }
    if (off >= GEN9_FENCE_REG_LO(0) && off < GEN9_FENCE_REG_LO(GTT_MAX_VGPU_FENCES)) {
        unsigned i = (off - GEN9_FENCE_REG_LO(0)) / 8u;
        return (off & 4u) ? (uint32_t)(v->fence[i] >> 32) : (uint32_t)v->fence[i];
    }
    if (off >= GEN9_RING_CSB_LO(BCS, 0) && off < GEN9_RING_CSB_LO(BCS, VGPU_CSB_ENTRIES))
        return v->csb[(off - GEN9_RING_CSB_LO(BCS, 0)) / 8u][(off & 4u) ? 1 : 0];
    switch (off) {
    case GEN9_RING_HWS_PGA(BCS):           return v->hws_pga;
    case GEN9_RING_MODE(BCS):              return v->ring_mode;
    case GEN9_RING_IMR(BCS):               return v->imr;
    case GEN9_RING_EXECLIST_STATUS_LO(BCS): return v->execlist_status_lo;
    case GEN9_RING_EXECLIST_STATUS_HI(BCS): return v->execlist_status_hi;
    case GEN9_RING_CSB_PTR(BCS):
        return (v->csb_read & GEN9_CSB_PTR_MASK) << GEN9_CSB_READ_PTR_SHIFT |
               (v->csb_write & GEN9_CSB_PTR_MASK) << GEN9_CSB_WRITE_PTR_SHIFT;
    case GEN9_RING_TIMESTAMP(BCS):
    case GEN9_RING_TIMESTAMP_UDW(BCS): {
        uint64_t ns = v->dev->cfg.env.now_ns(v->dev->cfg.env.ctx);
        uint64_t t = igpu_ns_to_ticks(ns, v->dev->cfg.igpu->info.timestamp_hz);
        return off == GEN9_RING_TIMESTAMP(BCS) ? (uint32_t)t : (uint32_t)(t >> 32);
    }
    case GEN9_CTC_MODE:
    case GEN9_TIMESTAMP_OVERRIDE: {
        /* The rate RING_TIMESTAMP counts at above, said the way a Gen9 says it (an i915 guest
         * reads it here: intel_gt_clock_utils.c gen9_read_clock_frequency()). */
        uint32_t ctc = 0, ovr = 0;
        gen9_cs_timestamp_encode(v->dev->cfg.igpu->info.timestamp_hz, &ctc, &ovr);
        return off == GEN9_CTC_MODE ? ctc : ovr;
    }
    case GEN9_GT_IIR(0):   return v->gt_iir;
    case GEN9_GT_IMR(0):   return v->gt_imr;
    case GEN9_GT_IER(0):   return v->gt_ier;
    case GEN9_GT_ISR(0):   return 0;
    case GEN9_MASTER_IRQ:
        return v->master_irq | ((v->gt_iir & v->gt_ier) ? GEN9_MASTER_GT_BCS_IRQ : 0);
    case GEN9_PIPESRC_A:
        return (v->tile_w ? v->tile_w - 1 : 0) << GEN9_PIPESRC_WIDTH_SHIFT | (v->tile_h ? v->tile_h - 1 : 0);
    case GEN9_PLANE_CTL_1_A:    return v->plane_ctl;
    case GEN9_PLANE_STRIDE_1_A: return v->plane_stride;
    case GEN9_PLANE_POS_1_A:    return v->plane_pos;
    case GEN9_PLANE_SIZE_1_A:   return v->plane_size;
    case GEN9_PLANE_SURF_1_A:   return v->plane_surf;
    default: {
        v->st.other_regs++;
        uint32_t *r = other_reg(v, off, false);
        return r ? *r : 0;
    }
    }
}

static void reg_write(struct vgpu *v, uint32_t off, uint32_t val)
{
    if (v->i915 && vgpu_i915_reg_write(v, off, val))
        return;
    for (unsigned i = 0; i < 3; i++) {
        if (off == fw_req_reg[i]) {
            v->fw_req[i] = masked(v->fw_req[i], val);
            return;
        }
    }
    if (vgpu_is_fence_reg(off)) {
        unsigned i = (off - GEN9_FENCE_REG_LO(0)) / 8u;
        uint64_t f = v->fence[i];
        vgpu_fence_write(v, i, (off & 4u) ? (f & 0xFFFFFFFFull) | (uint64_t)val << 32
                                    : (f & ~0xFFFFFFFFull) | val);
        return;
    }
    switch (off) {
    case GEN9_RING_HWS_PGA(BCS):
        v->hws_pga = val & ~(uint32_t)GEN9_GTT_PAGE_MASK;
        return;
    case GEN9_RING_MODE(BCS):
        v->ring_mode = masked(v->ring_mode, val);
        return;
    case GEN9_RING_IMR(BCS):
        v->imr = val;
        return;
    case GEN9_RING_ELSP(BCS):
        v->elsp[v->elsp_n++] = val;
        if (v->elsp_n == 4) {
            v->elsp_n = 0;
            vgpu_elsp_submit(v);
        }
        return;
    case GEN9_RING_ELSP(RCS):
        v->st.submitted++;
        v->st.rejected++;
        v->pv.tessera_balloon.submitted++;
        v->pv.tessera_balloon.rejected++;
        v->pv.tessera_balloon.last_reject = TESSERA_REJECT_ENGINE;
        /* Logged like every refusal; the log limits each guest's lines (vmm/log_limit.h). */
        vgpu_note_reject(v, TESSERA_REJECT_ENGINE, "render-engine ELSP write refused: guests get the blitter only");
        return;
    case GEN9_RING_CSB_PTR(BCS): {
        /* A masked register with both pointers writable, as GVT-g emulates it (handlers.c:
         * CONTEXT_STATUS_PTR is F_MODE_MASK and stored whole): i915 rewinds both after a
         * reset (reset_csb_pointers()). */
        uint32_t p = masked(v->csb_read << GEN9_CSB_READ_PTR_SHIFT |
                                v->csb_write << GEN9_CSB_WRITE_PTR_SHIFT, val);
        v->csb_read = (p >> GEN9_CSB_READ_PTR_SHIFT) & GEN9_CSB_PTR_MASK;
        v->csb_write = (p >> GEN9_CSB_WRITE_PTR_SHIFT) & GEN9_CSB_PTR_MASK;
        return;
    }
    case GEN9_GT_IIR(0):   v->gt_iir &= ~val; return;
    case GEN9_GT_IMR(0):   v->gt_imr = val; return;
    case GEN9_GT_IER(0):   v->gt_ier = val; return;
    case GEN9_MASTER_IRQ:  v->master_irq = val & GEN9_MASTER_IRQ_CONTROL; return;
    case GEN9_PIPESRC_A:   return;      /* the wall decides the mode */
    case GEN9_PLANE_CTL_1_A:    v->plane_ctl = val; return;
    case GEN9_PLANE_STRIDE_1_A: v->plane_stride = val; return;
    case GEN9_PLANE_POS_1_A:    v->plane_pos = val; return;
    case GEN9_PLANE_SIZE_1_A:   v->plane_size = val; return;
    case GEN9_PLANE_SURF_1_A:   v->plane_surf = val; return;
    default: {
        v->st.other_regs++;
        uint32_t *r = other_reg(v, off, true);
        if (r)
            *r = val;
        return;
    }
    }
}

uint32_t vgpu_reg_read(struct vgpu *v, uint32_t off)
{
    return reg_read(v, off);
}

void vgpu_reg_write(struct vgpu *v, uint32_t off, uint32_t val)
{
    reg_write(v, off, val);
}

/* ---- the PV info page --------------------------------------------------------------------- */

/* Fields the guest may write; everything else in the page is read-only. */
static bool pv_writable(uint32_t off, unsigned size)
{
    static const struct { uint32_t off, size; } w[] = {
        { offsetof(struct vgt_if, display_ready), 4 },
        { offsetof(struct vgt_if, g2v_notify), 4 },
        { offsetof(struct vgt_if, cursor_x_hot), 8 },
        { offsetof(struct vgt_if, pdp), 32 },
        { offsetof(struct vgt_if, execlist_context_descriptor_lo), 8 },
        { offsetof(struct vgt_if, tessera_balloon) + offsetof(struct tessera_balloon_if, request), 4 },
        { offsetof(struct vgt_if, tessera_move) + offsetof(struct tessera_move_if, caps), 4 },
        { offsetof(struct vgt_if, tessera_move) + offsetof(struct tessera_move_if, low_used), 4 },
    };
    for (unsigned i = 0; i < sizeof w / sizeof w[0]; i++)
        if (off >= w[i].off && off + size <= w[i].off + w[i].size)
            return true;
    return false;
}

static void pv_write(struct vgpu *v, uint32_t off, unsigned size, uint64_t val)
{
    if (!pv_writable(off, size))
        return;
    memcpy((uint8_t *)&v->pv + off, &val, size);
    if (off == offsetof(struct vgt_if, g2v_notify) && v->pv.g2v_notify == TESSERA_G2V_BALLOON)
        vgpu_balloon_notify(v);
    if (off == offsetof(struct vgt_if, g2v_notify) && v->pv.g2v_notify == TESSERA_G2V_MOVE_READY)
        vgpu_move_ready(v);
    if (off == offsetof(struct vgt_if, g2v_notify) && v->i915)
        vgpu_i915_g2v(v, v->pv.g2v_notify);
}

/* ---- the GGTT half ------------------------------------------------------------------------ */

static void ggtt_write(struct vgpu *v, uint32_t index, uint64_t pte)
{
    v->st.ggtt_writes++;
    int rc = gtt_guest_write(v->dev->cfg.gtt, v->id, index, pte);
    if (rc == 0)
        return;
    v->st.ggtt_refused++;
    v->pv.tessera_balloon.ggtt_refused++;
    vgpu_logf(v->dev, VGPU_LOG_WARN, "vgpu %u: GGTT write refused: entry %#x (graphics address %#llx) "
                  "= %#llx: %s", v->id, index, (unsigned long long)index << GEN9_GTT_PAGE_SHIFT,
                  (unsigned long long)pte,
                  rc == GTT_ERANGE ? "entry outside its graphics memory"
                  : rc == GTT_EPERM ? "target is not a page of its RAM" : gtt_strerror(rc));
}

/* ---- dispatch ----------------------------------------------------------------------------- */

static bool aligned(uint64_t off, unsigned size)
{
    return (size == 1 || size == 2 || size == 4 || size == 8) && (off & (size - 1)) == 0;
}

/* The work extension as of now (struct tessera_work_if): which of its workloads wait behind
 * other guests' work, and the GPU time its work has used with the part under way. */
static void work_refresh(struct vgpu *v)
{
    const struct vgpu_dev *d = v->dev;
    bool on_gpu = d->running == v->id;
    uint32_t waiting = 0;
    for (unsigned i = 0; i < v->q_len; i++) {
        const struct vgpu_workload *w = &v->q[(v->q_head + i) % VGPU_QUEUE_MAX];
        waiting += !w->is_void && !w->done && !(w->inflight && on_gpu);
    }
    v->pv.tessera_work.waiting = waiting;
    v->pv.tessera_work.gpu_us = (uint32_t)((v->st.gpu_ns + (on_gpu ? d->inflight_ns : 0)) / 1000u);
}

bool vgpu_mmio_read(struct vgpu *v, uint64_t off, unsigned size, uint64_t *val)
{
    if (!v || off >= VGPU_BAR0_SIZE || !aligned(off, size))
        return false;
    v->st.mmio_reads++;
    if (off >= VGPU_GGTT_OFFSET) {
        uint64_t pte = 0;
        gtt_guest_read(v->dev->cfg.gtt, v->id, (uint32_t)((off - VGPU_GGTT_OFFSET) / 8u), &pte);
        pte >>= 8u * (off & 7u);
        *val = size == 8 ? pte : pte & ((1ull << (8u * size)) - 1);
        return true;
    }
    if (off >= VGT_PVINFO_PAGE && off < VGT_PVINFO_PAGE + VGT_PVINFO_SIZE) {
        uint64_t x = 0;
        work_refresh(v);
        memcpy(&x, (const uint8_t *)&v->pv + (off - VGT_PVINFO_PAGE), size);
        *val = x;
        return true;
    }
    if (off >= VGPU_MMIO_SIZE) {
        *val = 0;           /* between the registers and the GGTT: nothing decodes */
        return true;
    }
    uint32_t base = (uint32_t)off & ~3u;
    if (size == 8) {
        *val = reg_read(v, base) | (uint64_t)reg_read(v, base + 4) << 32;
        return true;
    }
    uint32_t x = reg_read(v, base) >> (8u * (off & 3u));
    *val = size == 4 ? x : x & ((1u << (8u * size)) - 1);
    return true;
}

bool vgpu_mmio_write(struct vgpu *v, uint64_t off, unsigned size, uint64_t val)
{
    if (!v || off >= VGPU_BAR0_SIZE || !aligned(off, size))
        return false;
    v->st.mmio_writes++;
    if (off >= VGPU_GGTT_OFFSET) {
        uint32_t index = (uint32_t)((off - VGPU_GGTT_OFFSET) / 8u);
        if (size == 8) {
            ggtt_write(v, index, val);
        } else if (size == 4) {
            /* i915 on 32-bit writes low then high: merge each half with the entry. */
            uint64_t pte = 0;
            gtt_guest_read(v->dev->cfg.gtt, v->id, index, &pte);
            pte = (off & 4u) ? (pte & 0xFFFFFFFFull) | val << 32 : (pte & ~0xFFFFFFFFull) | (uint32_t)val;
            ggtt_write(v, index, pte);
        } else {
            return false;   /* a partial entry write is not something a driver does */
        }
        return true;
    }
    if (off >= VGT_PVINFO_PAGE && off < VGT_PVINFO_PAGE + VGT_PVINFO_SIZE) {
        pv_write(v, (uint32_t)(off - VGT_PVINFO_PAGE), size, val);
        return true;
    }
    if (off >= VGPU_MMIO_SIZE)
        return true;
    if (size == 8 && vgpu_is_fence_reg((uint32_t)off)) {
        vgpu_fence_write(v, (uint32_t)(off - GEN9_FENCE_REG_LO(0)) / 8u, val);
        return true;
    }
    if (size == 8) {
        reg_write(v, (uint32_t)off, (uint32_t)val);
        reg_write(v, (uint32_t)off + 4, (uint32_t)(val >> 32));
        return true;
    }
    if (size != 4)
        return false;       /* registers are dwords; byte writes would need read-modify-write */
    reg_write(v, (uint32_t)off, (uint32_t)val);
    return true;
}
