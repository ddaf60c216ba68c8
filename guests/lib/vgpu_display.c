/* The primary plane of pipe A, as i915's skl_program_plane sets it up for a linear XRGB8888
 * framebuffer: stride, size, control, and the surface address last (on hardware the SURF
 * write arms the update).  Then display_ready in the PV page, as i915 does under GVT-g
 * (i915_vgpu.c / intel_display: vgt display_ready = VGT_DRV_DISPLAY_READY). */
#include "guests/lib/vgpu.h"
#include "guests/lib/vgpu_internal.h"

#include "drivers/igpu/gen9_regs.h"

#include <inttypes.h>

bool vgpu_display_set(struct vgpu *v, const struct vgpu_surface *fb)
{
    uint32_t stride = fb->pitch / GEN9_PLANE_STRIDE_UNIT;
    if (fb->pitch % GEN9_PLANE_STRIDE_UNIT || stride == 0 || stride > GEN9_PLANE_STRIDE_MASK ||
        (fb->bo.gm & ~(uint64_t)GEN9_PLANE_SURF_ADDR_MASK) || fb->bo.gm == 0) {
        vgpu_complain(v, "framebuffer at 0x%" PRIx64 " pitch %" PRIu32 " cannot be scanned out",
                      fb->bo.gm, fb->pitch);
        return false;
    }
    vgpu_write32(v, GEN9_PLANE_STRIDE_1_A, stride);
    vgpu_write32(v, GEN9_PLANE_SIZE_1_A,
                 (fb->height - 1u) << GEN9_PLANE_SIZE_HEIGHT_SHIFT | (fb->width - 1u));
    vgpu_write32(v, GEN9_PLANE_CTL_1_A, GEN9_PLANE_CTL_ENABLE | GEN9_PLANE_CTL_FORMAT_XRGB_8888);
    vgpu_write32(v, GEN9_PLANE_SURF_1_A, (uint32_t)fb->bo.gm);
    vgpu_write32(v, VGPU_PV(display_ready), VGT_DRV_DISPLAY_READY);
    v->display = fb;
    return true;
}
