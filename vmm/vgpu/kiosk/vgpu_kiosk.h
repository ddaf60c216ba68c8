/* The kiosk personality's state and the parts its files share (not for users of kiosk.h). */
#ifndef TESSERA_VMM_VGPU_KIOSK_VGPU_KIOSK_H
#define TESSERA_VMM_VGPU_KIOSK_VGPU_KIOSK_H

#include "drivers/igpu/gen9_regs.h"
#include "vmm/vgpu/core/vgpu_internal.h"
#include "vmm/vgpu/kiosk/kiosk.h"

/* The blitter's execlist port, its interrupts and the plane, as docs/vgpu-abi.md gives them. */
struct vgpu_kiosk {
    uint32_t ring_mode, hws_pga, imr;
    uint32_t elsp[GEN9_ELSP_DWORDS];
    unsigned elsp_n; /* dwords written of the current submission */
    uint32_t execlist_status_hi;
    uint32_t csb[VGPU_CSB_ENTRIES][2];
    unsigned csb_write; /* index of the last entry written (7: none since reset) */
    uint32_t csb_read;  /* guest's read pointer */
    uint32_t gt_iir, gt_imr, gt_ier, master_irq;
    uint32_t plane_ctl, plane_stride, plane_size, plane_surf, plane_pos;
};

static inline struct vgpu_kiosk *kiosk_of(const struct vgpu *v)
{
    return v->pers;
}

/* vgpu_kiosk_submit.c: the fourth ELSP dword arrived; each valid element is queued or refused. */
void vgpu_kiosk_elsp_submit(struct vgpu *v);
/* A workload retired: RING_HEAD into the context image, a CSB entry (registers and status
 * page), the blitter's interrupt bits, the PV page's counters. */
void vgpu_kiosk_retired(struct vgpu *v, const struct vgpu_retired *r);

#endif
