/* BAR0 of the vGPU: the register half (the personality's registers first, then those every
 * personality has: forcewake, fences, the GPU clock, plain storage; docs/vgpu-abi.md), the PV
 * info page and the GGTT half.  Fence registers are vgpu_fence.c's. */
#include "vmm/vgpu/core/vgpu_internal.h"

#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

#include <stddef.h>
#include <string.h>

#define BCS GEN9_BCS_BASE

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

static const uint32_t fw_req_reg[3] = { GEN9_FORCEWAKE_RENDER, GEN9_FORCEWAKE_GT,
                                        GEN9_FORCEWAKE_MEDIA };
static const uint32_t fw_ack_reg[3] = { GEN9_FORCEWAKE_ACK_RENDER, GEN9_FORCEWAKE_ACK_GT,
                                        GEN9_FORCEWAKE_ACK_MEDIA };

/* ---- the register file -------------------------------------------------------------------- */

static uint32_t reg_read(struct vgpu *v, uint32_t off)
{
    uint32_t x;
    if (v->ops->reg_read(v, off, &x))
        return x;
    for (unsigned i = 0; i < 3; i++) {
        if (off == fw_req_reg[i])
            return v->fw_req[i];
        if (off == fw_ack_reg[i])
            return v->fw_req[i]; /* the domain wakes at once */
    }
    if (off >= GEN9_FENCE_REG_LO(0) && off < GEN9_FENCE_REG_LO(GTT_MAX_VGPU_FENCES)) {
        unsigned i = (off - GEN9_FENCE_REG_LO(0)) / 8u;
        return (off & 4u) ? (uint32_t)(v->fence[i] >> 32) : (uint32_t)v->fence[i];
    }
    switch (off) {
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
    default: {
        v->st.other_regs++;
        uint32_t *r = other_reg(v, off, false);
        return r ? *r : 0;
    }
    }
}

static void reg_write(struct vgpu *v, uint32_t off, uint32_t val)
{
    if (v->ops->reg_write(v, off, val))
        return;
    for (unsigned i = 0; i < 3; i++) {
        if (off == fw_req_reg[i]) {
            v->fw_req[i] = gen9_masked_apply(v->fw_req[i], val);
            return;
        }
    }
    if (vgpu_is_fence_reg(off)) {
        /* Every physical fence register decodes here; past the vGPU's own there is no value
         * to merge the half with, and vgpu_fence_write() refuses the write. */
        unsigned i = (off - GEN9_FENCE_REG_LO(0)) / 8u;
        uint64_t f = i < GTT_MAX_VGPU_FENCES ? v->fence[i] : 0;
        vgpu_fence_write(v, i,
                         (off & 4u) ? (f & 0xFFFFFFFFull) | (uint64_t)val << 32
                                    : (f & ~0xFFFFFFFFull) | val);
        return;
    }
    v->st.other_regs++;
    uint32_t *r = other_reg(v, off, true);
    if (r)
        *r = val;
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
    static const struct {
        uint32_t off, size;
    } w[] = {
        { offsetof(struct vgt_if, display_ready), 4 },
        { offsetof(struct vgt_if, g2v_notify), 4 },
        { offsetof(struct vgt_if, cursor_x_hot), 8 },
        { offsetof(struct vgt_if, pdp), 32 },
        { offsetof(struct vgt_if, execlist_context_descriptor_lo), 8 },
        { offsetof(struct vgt_if, tessera_balloon) + offsetof(struct tessera_balloon_if, request),
          4 },
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
    if (off != offsetof(struct vgt_if, g2v_notify))
        return;
    if (v->pv.g2v_notify == TESSERA_G2V_BALLOON)
        vgpu_balloon_notify(v);
    else if (v->pv.g2v_notify == TESSERA_G2V_MOVE_READY)
        vgpu_move_ready(v);
    else if (v->ops->g2v)
        v->ops->g2v(v, v->pv.g2v_notify);
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
    vgpu_logf(v->dev, VGPU_LOG_WARN,
              "vgpu %u: GGTT write refused: entry %#x (graphics address %#llx) "
              "= %#llx: %s",
              v->id, index, (unsigned long long)index << GEN9_GTT_PAGE_SHIFT,
              (unsigned long long)pte,
              rc == GTT_ERANGE  ? "entry outside its graphics memory"
              : rc == GTT_EPERM ? "target is not a page of its RAM"
                                : gtt_strerror(rc));
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
        *val = 0; /* between the registers and the GGTT: nothing decodes */
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

uint64_t vgpu_mmio_write_cost(const struct vgpu *v, uint64_t off, unsigned size, uint64_t val)
{
    if (!v || size != 4 || off >= VGPU_MMIO_SIZE || !v->ops->submits ||
        !v->ops->submits(v, (uint32_t)off, (uint32_t)val))
        return 0;
    return v->st.scan_est_ns;
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
            pte = (off & 4u) ? (pte & 0xFFFFFFFFull) | val << 32
                             : (pte & ~0xFFFFFFFFull) | (uint32_t)val;
            ggtt_write(v, index, pte);
        } else {
            return false; /* a partial entry write is not something a driver does */
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
        return false; /* registers are dwords; byte writes would need read-modify-write */
    reg_write(v, (uint32_t)off, (uint32_t)val);
    return true;
}
