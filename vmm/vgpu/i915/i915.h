/* The i915 personality: the vGPU an unmodified Linux i915 guest needs (docs/vgpu-i915.md), for
 * guests whose configuration says `vgpu = "i915"`.  Four engines behind the vgt blocks
 * (register file, GT interrupt controller, execlist sequencers, PPGTT shadow), the blitter on
 * the scanned path of every vGPU, the render, video and video-enhance engines on the MI-only
 * command streamer, interrupts as MSI.  It needs env.page_alloc/page_free/guest_phys/phys_ptr/
 * protect/msi from the hypervisor; vgpu_create() with it fails (logged) without them. */
#ifndef TESSERA_VMM_VGPU_I915_I915_H
#define TESSERA_VMM_VGPU_I915_I915_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/igpu/igpu.h"
#include "vmm/vgpu/i915/display/vdisp.h"
#include "vmm/vgpu/i915/vgt/vgt_ppgtt.h"
#include "vmm/vgpu/personality.h"

extern const struct vgpu_personality vgpu_i915;

/* What an i915 vGPU did (docs/vgpu-i915.md, `vgpu <vm>`). */
#define VGPU_I915_FAULT_LEN 120u
struct vgpu_i915_stats {
    uint64_t elsp[IGPU_NUM_GT_ENGINES];      /* submissions the sequencer accepted */
    uint64_t completed[IGPU_NUM_GT_ENGINES]; /* elements completed */
    uint64_t faults[IGPU_NUM_GT_ENGINES];    /* engine faults the guest saw */
    uint64_t elsp_refused;                   /* invalid or queue-full submissions */
    uint64_t cs_commands, cs_state_skipped;  /* MI-only streamer: executed, 3D/media skipped */
    uint64_t msi_sent, msi_undelivered;
    uint64_t ppgtt_creates, ppgtt_destroys, ppgtt_refused; /* L4 notifications */
    uint64_t table_writes, oos_syncs;                      /* guest writes to protected table pages;
                                                 * out-of-sync pages read again */
    uint64_t ggtt_refused;   /* engine accesses through the GGTT refused */
    uint64_t guest_resets;   /* engines the guest reset (GDRST) */
    uint64_t deferred_frees; /* shadow pages freed after the GPU left them */
};

struct vgpu_i915_info {
    struct vgpu_i915_stats st;
    struct vgt_ppgtt_stats ppgtt;
    char fault[VGPU_I915_FAULT_LEN]; /* the last engine fault, "" if none */
};

/* Its display (a virtual DP monitor, `vgpu <vm>`'s display lines). */
struct vgpu_i915_display_info {
    bool present, connected, pipe_on;
    uint32_t width, height, hz;  /* the monitor's preferred mode */
    uint32_t refresh_mhz;        /* the pipe's, while on */
    uint32_t frame;              /* PIPE_FRMCOUNT */
    enum vdisp_scan_result scan; /* the primary plane as scanned out now */
    struct vdisp_scanout plane;
    const char *refused; /* the last refusal's reason while it lasts, or NULL */
    uint64_t refusals;   /* surfaces refused, counted at each check */
    unsigned overlays;   /* planes on that are not composed (1 << VDISP_*) */
    struct vdisp_stats st;
    struct vdisp_aux_stats aux;
};

/* True if v has the i915 personality. */
bool vgpu_is_i915(const struct vgpu *v);
/* Its counters, PPGTT shadow and last fault; false if v is not an i915 vGPU. */
bool vgpu_i915_get_info(const struct vgpu *v, struct vgpu_i915_info *out);
/* True if v is an i915 vGPU with a display. */
bool vgpu_i915_has_display(const struct vgpu *v);
/* Its display; false if it has none. */
bool vgpu_i915_display_info(const struct vgpu *v, struct vgpu_i915_display_info *out);

#endif
