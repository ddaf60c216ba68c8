/* The mediated vGPUs inside the hypervisor: vmm/vgpu/ (pure) wired to the machine — guest RAM,
 * EPT (ladder mapping of the aperture BAR), the trapped BAR0 region of every guest, the render
 * clock, the software model or the GPU, the balloon controller's period and measurements, and
 * the kiosk wall's sources. */
#ifndef TESSERA_VMM_VGPU_HOST_H
#define TESSERA_VMM_VGPU_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "gtt/gtt.h"
#include "vmm/vgpu/vgpu.h"

struct vgpu_host {
    bool ready;
    char error[200];
    struct vgpu_dev *dev;
    struct sched *sched;
    uint64_t host_phys, host_bytes; /* host-area memory backing the vGPUs' shadow state */
    uint32_t cost_scale;            /* model cost multiplier from calibration (x1000) */
    uint64_t gpu_wall_ns;           /* wall time spent running the GPU (model) */
    uint64_t balloon_next_ns;
    uint64_t place_next_ns; /* next re-placement period */
    uint64_t last_wait_ns, last_demand_ns, last_copy_ns, last_period_ns;
    uint32_t last_w_ppm, last_rcopy_ppm;
};

extern struct vgpu_host vgpu_host;

/* After gpu_init, vm_init_all and the boards: the scheduler, the vGPUs, and on each guest's
 * I/O bus its BAR0 and aperture regions and the vGPU as a device (reset at every restart). */
bool vgpu_host_init(const struct cfg *cfg);
/* The ladder-mapping callback gtt/ calls (vmm/vgpu/host/gpu.c routes it here). */
void vgpu_host_ept_update(unsigned id, const struct gtt_ept_update *u);
/* All of a guest's aperture EPT updates so far take effect (one INVEPT). */
void vgpu_host_ept_flush(unsigned id);
/* Main loop: renders for at most budget_us of CPU, then a step of the wall; true if the GPU
 * still has work or the wall a frame under way. */
bool vgpu_host_poll(uint64_t budget_us);

#endif
