/* The kiosk personality's registers (docs/vgpu-abi.md "Registers"): the blitter's execlist port
 * and context-status buffer, its interrupt bits in GT bank 0, the render engine refused, and
 * the primary plane of pipe A whose mode is the guest's tile. */
#include "vmm/vgpu/kiosk/vgpu_kiosk.h"

#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

#include <stdlib.h>
#include <string.h>

#define BCS GEN9_BCS_BASE
#define RCS GEN9_RCS_BASE

static void reset(struct vgpu *v)
{
    struct vgpu_kiosk *k = kiosk_of(v);
    memset(k, 0, sizeof *k);
    /* GVT-g's reset value (init_vgpu_execlist()): write pointer 7 = nothing written, the
     * first event goes to entry 0; read pointer 0. */
    k->csb_write = GEN9_CSB_PTR_RESET;
}

static int init(struct vgpu *v)
{
    if (!(v->pers = calloc(1, sizeof(struct vgpu_kiosk))))
        return -1;
    reset(v);
    return 0;
}

static void release(struct vgpu *v)
{
    free(v->pers);
    v->pers = NULL;
}

static bool reg_read(struct vgpu *v, uint32_t off, uint32_t *val)
{
    const struct vgpu_kiosk *k = kiosk_of(v);
    if (off >= GEN9_RING_CSB_LO(BCS, 0) && off < GEN9_RING_CSB_LO(BCS, VGPU_CSB_ENTRIES)) {
        *val = k->csb[(off - GEN9_RING_CSB_LO(BCS, 0)) / 8u][(off & 4u) ? 1 : 0];
        return true;
    }
    switch (off) {
    case GEN9_RING_HWS_PGA(BCS):
        *val = k->hws_pga;
        return true;
    case GEN9_RING_MODE(BCS):
        *val = k->ring_mode;
        return true;
    case GEN9_RING_IMR(BCS):
        *val = k->imr;
        return true;
    case GEN9_RING_EXECLIST_STATUS_LO(BCS):
        *val = v->q_len ? GEN9_EXECLIST0_VALID : 0;
        return true;
    case GEN9_RING_EXECLIST_STATUS_HI(BCS):
        *val = k->execlist_status_hi;
        return true;
    case GEN9_RING_CSB_PTR(BCS):
        *val = (k->csb_read & GEN9_CSB_PTR_MASK) << GEN9_CSB_READ_PTR_SHIFT |
               (k->csb_write & GEN9_CSB_PTR_MASK) << GEN9_CSB_WRITE_PTR_SHIFT;
        return true;
    case GEN9_GT_IIR(0):
        *val = k->gt_iir;
        return true;
    case GEN9_GT_IMR(0):
        *val = k->gt_imr;
        return true;
    case GEN9_GT_IER(0):
        *val = k->gt_ier;
        return true;
    case GEN9_GT_ISR(0):
        *val = 0;
        return true;
    case GEN9_MASTER_IRQ:
        *val = k->master_irq | ((k->gt_iir & k->gt_ier) ? GEN9_MASTER_GT_BCS_IRQ : 0);
        return true;
    case GEN9_PIPESRC_A:
        *val = (v->tile_w ? v->tile_w - 1 : 0) << GEN9_PIPESRC_WIDTH_SHIFT |
               (v->tile_h ? v->tile_h - 1 : 0);
        return true;
    case GEN9_PLANE_CTL_1_A:
        *val = k->plane_ctl;
        return true;
    case GEN9_PLANE_STRIDE_1_A:
        *val = k->plane_stride;
        return true;
    case GEN9_PLANE_POS_1_A:
        *val = k->plane_pos;
        return true;
    case GEN9_PLANE_SIZE_1_A:
        *val = k->plane_size;
        return true;
    case GEN9_PLANE_SURF_1_A:
        *val = k->plane_surf;
        return true;
    default:
        return false;
    }
}

static bool reg_write(struct vgpu *v, uint32_t off, uint32_t val)
{
    struct vgpu_kiosk *k = kiosk_of(v);
    switch (off) {
    case GEN9_RING_HWS_PGA(BCS):
        k->hws_pga = val & ~(uint32_t)GEN9_GTT_PAGE_MASK;
        return true;
    case GEN9_RING_MODE(BCS):
        k->ring_mode = gen9_masked_apply(k->ring_mode, val);
        return true;
    case GEN9_RING_IMR(BCS):
        k->imr = val;
        return true;
    case GEN9_RING_ELSP(BCS):
        k->elsp[k->elsp_n++] = val;
        if (k->elsp_n == GEN9_ELSP_DWORDS) {
            k->elsp_n = 0;
            vgpu_kiosk_elsp_submit(v);
        }
        return true;
    case GEN9_RING_ELSP(RCS):
        vgpu_count_submission(v);
        v->st.rejected++;
        v->pv.tessera_balloon.rejected++;
        v->pv.tessera_balloon.last_reject = TESSERA_REJECT_ENGINE;
        /* Logged like every refusal; the log limits each guest's lines (vmm/log_limit.h). */
        vgpu_note_reject(v, TESSERA_REJECT_ENGINE,
                         "render-engine ELSP write refused: guests get the blitter only");
        return true;
    case GEN9_RING_CSB_PTR(BCS): {
        /* A masked register with both pointers writable, as GVT-g emulates it (handlers.c:
         * CONTEXT_STATUS_PTR is F_MODE_MASK and stored whole): i915 rewinds both after a
         * reset (reset_csb_pointers()). */
        uint32_t p = gen9_masked_apply(k->csb_read << GEN9_CSB_READ_PTR_SHIFT |
                                           k->csb_write << GEN9_CSB_WRITE_PTR_SHIFT,
                                       val);
        k->csb_read = (p >> GEN9_CSB_READ_PTR_SHIFT) & GEN9_CSB_PTR_MASK;
        k->csb_write = (p >> GEN9_CSB_WRITE_PTR_SHIFT) & GEN9_CSB_PTR_MASK;
        return true;
    }
    case GEN9_GT_IIR(0):
        k->gt_iir &= ~val;
        return true;
    case GEN9_GT_IMR(0):
        k->gt_imr = val;
        return true;
    case GEN9_GT_IER(0):
        k->gt_ier = val;
        return true;
    case GEN9_MASTER_IRQ:
        k->master_irq = val & GEN9_MASTER_IRQ_CONTROL;
        return true;
    case GEN9_PIPESRC_A:
        return true; /* the wall decides the mode */
    case GEN9_PLANE_CTL_1_A:
        k->plane_ctl = val;
        return true;
    case GEN9_PLANE_STRIDE_1_A:
        k->plane_stride = val;
        return true;
    case GEN9_PLANE_POS_1_A:
        k->plane_pos = val;
        return true;
    case GEN9_PLANE_SIZE_1_A:
        k->plane_size = val;
        return true;
    case GEN9_PLANE_SURF_1_A:
        k->plane_surf = val;
        return true;
    default:
        return false;
    }
}

/* Addresses it holds for the guest follow a re-placement (docs/vgpu-abi.md "Re-placement"). */
static void follow_addr(uint32_t *addr, uint64_t from, uint64_t size, uint64_t to)
{
    if (*addr >= from && *addr - from < size)
        *addr = (uint32_t)(*addr - from + to);
}

static void follow(struct vgpu *v, uint64_t from, uint64_t size, uint64_t to)
{
    struct vgpu_kiosk *k = kiosk_of(v);
    follow_addr(&k->plane_surf, from, size, to);
    follow_addr(&k->hws_pga, from, size, to);
}

/* Linear XRGB8888 only: what the guest library draws (docs/display.md). */
static bool plane_get(const struct vgpu *v, struct vgpu_plane *out)
{
    const struct vgpu_kiosk *k = kiosk_of(v);
    if (!(k->plane_ctl & GEN9_PLANE_CTL_ENABLE) ||
        (k->plane_ctl & GEN9_PLANE_CTL_FORMAT_MASK) != GEN9_PLANE_CTL_FORMAT_XRGB_8888 ||
        (k->plane_ctl & GEN9_PLANE_CTL_TILED_MASK))
        return false;
    out->width = (k->plane_size & GEN9_PLANE_SIZE_WIDTH_MASK) + 1;
    out->height = (k->plane_size >> GEN9_PLANE_SIZE_HEIGHT_SHIFT & GEN9_PLANE_SIZE_HEIGHT_MASK) + 1;
    out->stride = (k->plane_stride & GEN9_PLANE_STRIDE_MASK) * GEN9_PLANE_STRIDE_UNIT;
    out->gm = k->plane_surf & GEN9_PLANE_SURF_ADDR_MASK;
    return out->stride >= out->width * 4u;
}

/* The fourth ELSP dword submits (its scan runs in this write's exit). */
static bool submits(const struct vgpu *v, uint32_t off, uint32_t val)
{
    return off == GEN9_RING_ELSP(BCS) && kiosk_of(v)->elsp_n == GEN9_ELSP_DWORDS - 1u;
}

const struct vgpu_personality vgpu_kiosk = {
    .name = "kiosk",
    .init = init,
    .free = release,
    .reset = reset,
    .reg_read = reg_read,
    .reg_write = reg_write,
    .submits = submits,
    .retired = vgpu_kiosk_retired,
    .follow = follow,
    .plane_get = plane_get,
};
