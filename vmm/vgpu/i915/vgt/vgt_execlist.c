/*
 * The execlist/CSB sequencer of one virtual engine (vgt_execlist.h says what it produces and
 * why; GVT-g gvt/execlist.c emulate_execlist_schedule_in()/_ctx_schedule_out(),
 * emulate_csb_update(), emulate_execlist_status() are the reference).
 */
#include <string.h>

#include "vmm/vgpu/i915/vgt/vgt_execlist.h"

void vgt_el_init(struct vgt_execlist *el, enum igpu_engine e)
{
    memset(el, 0, sizeof *el);
    el->engine = e;
    vgt_el_reset(el);
}

void vgt_el_reset(struct vgt_execlist *el)
{
    el->elsp_n = 0;
    el->running = el->waiting = false;
    el->run[0] = el->run[1] = el->wait[0] = el->wait[1] = 0;
    el->elem = 0;
    el->slot = 0;
    el->wp = GEN9_CSB_PTR_RESET;
    el->rp = 0;
}

/* One CSB event: the registers, the status page (entry, then the write pointer), then the
 * interrupt unless the caller bundles it with the next event. */
static void csb_event(struct vgt_execlist *el, const struct vgt_el_ops *ops, uint32_t status,
                      uint32_t ctx_id, bool interrupt)
{
    uint32_t wp = gen9_csb_next(el->wp);

    el->csb[wp][0] = status;
    el->csb[wp][1] = ctx_id;
    el->wp = wp;
    el->st.events++;
    if (ops && ops->hwsp_write) {
        ops->hwsp_write(ops->ctx, el->engine, GEN9_HWS_CSB_BUF0_INDEX + 2u * wp, status);
        ops->hwsp_write(ops->ctx, el->engine, GEN9_HWS_CSB_BUF0_INDEX + 2u * wp + 1u, ctx_id);
        ops->hwsp_write(ops->ctx, el->engine, GEN9_HWS_CSB_WRITE_INDEX, wp);
    }
    if (interrupt && ops && ops->interrupt)
        ops->interrupt(ops->ctx, el->engine, GEN9_GT_CONTEXT_SWITCH);
}

static bool valid(uint64_t desc)
{
    return (desc & GEN9_CTX_VALID) != 0;
}

/* A new list becomes the running one, in the other slot (GVT-g switch_virtual_execlist_slot). */
static void run_list(struct vgt_execlist *el, const uint64_t list[2])
{
    el->run[0] = list[0];
    el->run[1] = list[1];
    el->elem = 0;
    el->running = true;
    el->slot ^= 1u;
}

enum vgt_el_result vgt_el_submit(struct vgt_execlist *el, uint64_t desc0, uint64_t desc1,
                                 const struct vgt_el_ops *ops, uint64_t *run)
{
    uint64_t list[2] = { desc0, valid(desc1) ? desc1 : 0 };

    if (!valid(desc0)) {
        el->st.refused++;
        return VGT_EL_E_INVALID;
    }
    if (!el->running) {
        run_list(el, list);
        el->st.submissions++;
        csb_event(el, ops, GEN9_CTX_STATUS_IDLE_ACTIVE, 0, true);
        if (run)
            *run = desc0;
        return VGT_EL_STARTED;
    }
    if (el->waiting) {
        el->st.refused++;
        return VGT_EL_E_QFULL;
    }
    el->st.submissions++;
    /* GVT-g's two lite-restore cases: element 1 of the running list is active and is the new
     * element 0, or the running list has one element and it is the new element 0. */
    if ((valid(el->run[1]) && el->elem == 1 && vgt_el_same_context(el->run[1], desc0)) ||
        (!valid(el->run[1]) && vgt_el_same_context(el->run[0], desc0))) {
        run_list(el, list);
        el->st.lite_restores++;
        csb_event(el, ops, GEN9_CTX_STATUS_PREEMPTED | GEN9_CTX_STATUS_LITE_RESTORE,
                  gen9_ctx_desc_id(desc0), true);
        if (run)
            *run = desc0;
        return VGT_EL_LITE_RESTORE;
    }
    el->wait[0] = list[0];
    el->wait[1] = list[1];
    el->waiting = true;
    el->st.queued++;
    return VGT_EL_QUEUED;
}

enum vgt_el_result vgt_el_elsp_write(struct vgt_execlist *el, uint32_t val,
                                     const struct vgt_el_ops *ops, uint64_t *run)
{
    el->elsp[el->elsp_n++] = val;
    if (el->elsp_n < GEN9_ELSP_DWORDS)
        return VGT_EL_NONE;
    el->elsp_n = 0;
    /* Written: element 1 upper, element 1 lower, element 0 upper, element 0 lower (i915
     * execlists_submit_ports()/write_desc(); GVT-g elsp_mmio_write()). */
    return vgt_el_submit(el, (uint64_t)el->elsp[2] << 32 | el->elsp[3],
                         (uint64_t)el->elsp[0] << 32 | el->elsp[1], ops, run);
}

enum vgt_el_result vgt_el_complete(struct vgt_execlist *el, const struct vgt_el_ops *ops,
                                   uint64_t *next)
{
    uint64_t done;

    if (!el->running)
        return VGT_EL_E_NOT_RUNNING;
    done = el->run[el->elem];
    el->st.completions++;
    if (el->elem == 0 && valid(el->run[1])) {
        el->elem = 1;
        csb_event(el, ops, GEN9_CTX_STATUS_ELEMENT_SWITCH | GEN9_CTX_STATUS_COMPLETE,
                  gen9_ctx_desc_id(done), true);
        if (next)
            *next = el->run[1];
        return VGT_EL_NEXT;
    }
    el->running = false;
    if (!el->waiting) {
        csb_event(el, ops, GEN9_CTX_STATUS_ACTIVE_IDLE | GEN9_CTX_STATUS_COMPLETE,
                  gen9_ctx_desc_id(done), true);
        return VGT_EL_IDLE;
    }
    csb_event(el, ops, GEN9_CTX_STATUS_ACTIVE_IDLE | GEN9_CTX_STATUS_COMPLETE,
              gen9_ctx_desc_id(done), false);
    el->waiting = false;
    run_list(el, el->wait);
    csb_event(el, ops, GEN9_CTX_STATUS_IDLE_ACTIVE, 0, true);
    if (next)
        *next = el->run[0];
    return VGT_EL_STARTED;
}

uint64_t vgt_el_active(const struct vgt_execlist *el)
{
    return el->running ? el->run[el->elem] : 0;
}

/* ---- registers ---------------------------------------------------------------------------- */

static uint32_t base(const struct vgt_execlist *el)
{
    return igpu_engine_base(el->engine);
}

static bool is_csb_entry(const struct vgt_execlist *el, uint32_t off)
{
    return off >= GEN9_RING_CSB_LO(base(el), 0) &&
           off < GEN9_RING_CSB_LO(base(el), GEN9_CSB_ENTRIES);
}

bool vgt_el_owns(const struct vgt_execlist *el, uint32_t off)
{
    uint32_t b = base(el);
    return off == GEN9_RING_ELSP(b) || off == GEN9_RING_EXECLIST_STATUS_LO(b) ||
           off == GEN9_RING_EXECLIST_STATUS_HI(b) || off == GEN9_RING_CSB_PTR(b) ||
           is_csb_entry(el, off);
}

/* RING_EXECLIST_STATUS_LO as GVT-g emulate_execlist_status() composes it. */
static uint32_t status_lo(const struct vgt_execlist *el)
{
    uint32_t v = 0;

    if (el->running) {
        if (el->slot)
            v |= GEN9_EXECLIST_CURRENT_POINTER | GEN9_EXECLIST1_VALID | GEN9_EXECLIST1_ACTIVE;
        else
            v |= GEN9_EXECLIST_WRITE_POINTER | GEN9_EXECLIST0_VALID | GEN9_EXECLIST0_ACTIVE;
    } else if (!el->slot) {
        v |= GEN9_EXECLIST_WRITE_POINTER;
    } else {
        v |= GEN9_EXECLIST_CURRENT_POINTER;
    }
    if (el->waiting)
        v |= GEN9_EXECLIST_QFULL;
    return v;
}

uint32_t vgt_el_read(const struct vgt_execlist *el, uint32_t off)
{
    uint32_t b = base(el);

    if (off == GEN9_RING_EXECLIST_STATUS_LO(b))
        return status_lo(el);
    if (off == GEN9_RING_EXECLIST_STATUS_HI(b))
        return el->running ? gen9_ctx_desc_id(el->run[el->elem]) : 0;
    if (off == GEN9_RING_CSB_PTR(b))
        return (el->rp & GEN9_CSB_PTR_MASK) << GEN9_CSB_READ_PTR_SHIFT |
               (el->wp & GEN9_CSB_PTR_MASK) << GEN9_CSB_WRITE_PTR_SHIFT;
    if (is_csb_entry(el, off))
        return el->csb[(off - GEN9_RING_CSB_LO(b, 0)) / 8u][(off & 4u) ? 1 : 0];
    return 0; /* ELSP is write-only */
}

void vgt_el_write(struct vgt_execlist *el, uint32_t off, uint32_t val)
{
    if (off == GEN9_RING_CSB_PTR(base(el))) {
        /* Masked, both pointers writable: GVT-g stores the whole masked value (handlers.c,
         * F_MODE_MASK), and i915 rewinds both after a reset (reset_csb_pointers()). */
        uint32_t p = gen9_masked_apply(el->rp << GEN9_CSB_READ_PTR_SHIFT |
                                           el->wp << GEN9_CSB_WRITE_PTR_SHIFT,
                                       val);
        el->rp = (p >> GEN9_CSB_READ_PTR_SHIFT) & GEN9_CSB_PTR_MASK;
        el->wp = (p >> GEN9_CSB_WRITE_PTR_SHIFT) & GEN9_CSB_PTR_MASK;
    }
    /* The CSB entries and the status registers are read-only (GVT-g F_RO). */
}
