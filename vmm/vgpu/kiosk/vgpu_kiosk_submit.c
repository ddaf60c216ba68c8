/* The kiosk's execlist port on the blitter (docs/vgpu-abi.md "Submission"): four ELSP dwords make
 * a submission of up to two elements, each element's ring bytes since its head are one workload
 * (one submission, one workload, one completion), and a retired workload comes back as one
 * context-status-buffer entry, in the registers and in the guest's status page, with the
 * blitter's context-switch and user interrupts. */
#include "vmm/vgpu/kiosk/vgpu_kiosk.h"

#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_regs.h"

/* One element: queued as one workload, or refused with the reason. */
static void submit_element(struct vgpu *v, uint64_t desc)
{
    uint32_t lrca = (uint32_t)(desc & GEN9_CTX_LRCA_MASK);
    uint32_t ctx_id = (uint32_t)(desc >> GEN9_CTX_ID_SHIFT);
    char why[160];
    struct vgpu_guest_ring r;

    vgpu_count_submission(v);
    if (!vgpu_read_context(v, lrca, &r, why, sizeof why)) {
        vgpu_note_reject(v, TESSERA_REJECT_BAD_CONTEXT, "workload refused: %s", why);
        /* Nothing usable to retire into: tell the guest through the counters only. */
        v->st.rejected++;
        v->pv.tessera_balloon.rejected++;
        v->pv.tessera_balloon.last_reject = TESSERA_REJECT_BAD_CONTEXT;
        return;
    }
    vgpu_resume_head(v, lrca, &r);
    uint32_t bytes = (r.tail - r.head + r.size) % r.size;
    if (bytes == 0) {
        vgpu_retire(v, lrca, ctx_id, r.tail, TESSERA_REJECT_NONE);
        return;
    }
    if (bytes > VGPU_SLICE_MAX_DW * 4u) {
        vgpu_note_reject(v, TESSERA_REJECT_BAD_CONTEXT,
                         "workload refused: %u ring bytes in one "
                         "submission, at most %u",
                         bytes, VGPU_SLICE_MAX_DW * 4u);
        vgpu_refuse(v, lrca, ctx_id, r.tail, TESSERA_REJECT_BAD_CONTEXT);
        return;
    }
    vgpu_queue_slice(v, lrca, ctx_id, 0, &r, r.head, bytes);
}

/* elsp[] holds descriptor 1 high, 1 low, 0 high, 0 low (i915 execlists_submit_ports()). */
void vgpu_kiosk_elsp_submit(struct vgpu *v)
{
    const struct vgpu_kiosk *k = kiosk_of(v);
    uint64_t desc1 = (uint64_t)k->elsp[0] << 32 | k->elsp[1];
    uint64_t desc0 = (uint64_t)k->elsp[2] << 32 | k->elsp[3];
    if (desc0 & GEN9_CTX_VALID)
        submit_element(v, desc0);
    if (desc1 & GEN9_CTX_VALID)
        submit_element(v, desc1);
}

void vgpu_kiosk_retired(struct vgpu *v, const struct vgpu_retired *r)
{
    struct vgpu_kiosk *k = kiosk_of(v);
    /* The engine would have saved RING_HEAD = tail into the context image. */
    vgpu_gm_write32(v, (uint64_t)r->lrca + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_RING_HEAD,
                    r->tail);

    k->csb_write = gen9_csb_next(k->csb_write); /* GVT-g emulate_csb_update() */
    k->csb[k->csb_write][0] = GEN9_CTX_STATUS_ACTIVE_IDLE | GEN9_CTX_STATUS_COMPLETE;
    k->csb[k->csb_write][1] = r->ctx_id;
    if (k->hws_pga) {
        uint64_t csb = (uint64_t)k->hws_pga + 4u * (GEN9_HWS_CSB_BUF0_INDEX + 2u * k->csb_write);
        vgpu_gm_write32(v, csb, k->csb[k->csb_write][0]);
        vgpu_gm_write32(v, csb + 4, r->ctx_id);
        vgpu_gm_write32(v, (uint64_t)k->hws_pga + 4u * GEN9_HWS_CSB_WRITE_INDEX, k->csb_write);
    }
    k->gt_iir |= (GEN9_GT_CONTEXT_SWITCH | GEN9_GT_USER_INTERRUPT) << GEN9_GT_BCS_IRQ_SHIFT;

    if (r->code == TESSERA_REJECT_NONE) {
        v->st.completed++;
        v->pv.tessera_balloon.completed++;
    } else {
        v->pv.tessera_balloon.rejected++;
        v->pv.tessera_balloon.last_reject = r->code;
    }
}
