/* A vGPU personality: the GPU a guest's driver believes it drives.
 *
 * The device core (vmm/vgpu/core/) is the same for every guest: BAR0 decode (the GGTT half,
 * fences, forcewake, the GPU clock, the PV info page, plain register storage), the scanned
 * submission queue, the render loop, ballooning and re-placement.  A personality adds what one
 * kind of driver needs on top: its own registers (answered before the core's), how an ELSP write
 * becomes workloads, how a retired workload is reported back (context-status buffer, status
 * page, interrupt), its plane for the kiosk wall, and its own counters.
 *
 *  - kiosk (vmm/vgpu/kiosk/): Tessera's own guests, docs/vgpu-abi.md: one blitter, one
 *    submission = one workload, a primary plane in plain registers, balloon and re-placement.
 *  - i915 (vmm/vgpu/i915/): an unmodified Linux i915, docs/vgpu-i915.md: four engines, full
 *    PPGTT, the GT interrupt controller, MSI.
 *
 * A vGPU has exactly one personality, chosen before its guest first runs
 * (vgpu_set_personality()).  Every hook may assume v->pers is the state init() made. */
#ifndef TESSERA_VMM_VGPU_PERSONALITY_H
#define TESSERA_VMM_VGPU_PERSONALITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/igpu/scanner/scanner.h"

struct vgpu;
struct vgpu_plane;
struct vgpu_monitor;

/* What a retirement tells the personality: the guest context whose work it was, where the
 * engine's head ends, and whether it ran (code TESSERA_REJECT_NONE) or why not. */
struct vgpu_retired {
    uint32_t lrca, ctx_id, tail;
    uint32_t code;       /* TESSERA_REJECT_* */
    bool user_interrupt; /* it ran an MI_USER_INTERRUPT */
};

struct vgpu_personality {
    const char *name;  /* "kiosk", "i915": `vgpu <vm>` shows it */
    uint32_t vgt_caps; /* PV info page capabilities offered (VGT_CAPS_*) */
    /* Its contexts run with a PPGTT: legacy 64-bit addressing, shadow_root() in PDP0. */
    bool ppgtt_contexts;

    /* Makes v->pers (0), or logs why not (-1).  free() releases it. */
    int (*init)(struct vgpu *v);
    void (*free)(struct vgpu *v);
    /* Power-on state again: the guest restarted (the core has dropped its queue). */
    void (*reset)(struct vgpu *v);

    /* BAR0 registers it owns: true if it answered (the core's registers are asked next). */
    bool (*reg_read)(struct vgpu *v, uint32_t off, uint32_t *val);
    bool (*reg_write)(struct vgpu *v, uint32_t off, uint32_t val);
    /* The guest wrote g2v_notify (the core has handled Tessera's balloon and move values). */
    void (*g2v)(struct vgpu *v, uint32_t what);
    /* The guest wrote its RAM page gpa, which this personality had write-protected: true if
     * it took the page back (the guest executes the write again).  May be NULL. */
    bool (*protected_write)(struct vgpu *v, uint64_t gpa);

    /* True if writing val to its register off submits work (the write that completes an ELSP
     * submission): the vCPU may put the write off while its scan would delay another guest
     * (vgpu_mmio_write_cost()).  May be NULL: no write is long. */
    bool (*submits)(const struct vgpu *v, uint32_t off, uint32_t val);
    /* The scanner's rules for workload w (engine profile, PPGTT callbacks): sc holds the
     * core's defaults (the blitter, the vGPU's ranges, shadow buffers).  May be NULL. */
    void (*scan_config)(struct vgpu *v, uint64_t pml4, uint32_t lrca, struct igpu_scan_config *sc);
    /* The shadow context's PDP0 for work of the guest context whose PPGTT root is pml4 (0:
     * none; its PPGTT batches then fault).  Only with ppgtt_contexts. */
    uint64_t (*shadow_root)(struct vgpu *v, uint64_t pml4);
    /* One of its workloads retired, or a submission was refused with nothing queued. */
    void (*retired)(struct vgpu *v, const struct vgpu_retired *r);

    /* Engines it runs on the host's CPU instead of the GPU (bit = enum igpu_engine, never the
     * blitter's): each has a scheduler in the core, and the render loop runs them in bounded
     * steps (vgpu_cpu_engine.c).  The personality queues each submission with
     * vgpu_cpu_submit() and runs its work when cpu_run() is called.  0: none. */
    uint32_t cpu_engines;
    /* Runs v's work on CPU engine e until `budget_ns` of env.cpu_ns has passed (a little past
     * it: one command), or `limit` of its oldest unfinished submissions on e have finished;
     * returns how many finished, oldest first.  *faulted: the engine stopped on a fault (the
     * guest was told; the core drops the rest of its work on e). */
    unsigned (*cpu_run)(struct vgpu *v, enum igpu_engine e, unsigned limit, uint64_t budget_ns,
                        bool *faulted);
    /* The core stopped v's work on engine e (the watchdog): drop it and tell the guest, as a
     * hang its driver resets.  The core drops the submissions from the scheduler. */
    void (*cpu_reset)(struct vgpu *v, enum igpu_engine e, const char *why);

    /* Addresses it keeps for the guest in [from, from + size) follow a re-placement to `to`
     * (a plane surface, a status page).  May be NULL. */
    void (*follow)(struct vgpu *v, uint64_t from, uint64_t size, uint64_t to);
    /* The surface its display scans out, for the kiosk wall; false if none (out->refused says
     * why when the guest named a surface that is not shown).  May be NULL. */
    bool (*plane_get)(const struct vgpu *v, struct vgpu_plane *out);
    /* Its display's monitor: configure (before the guest first runs) the one it boots with,
     * else plug it in, unplug it (!m->connected) or change its mode now, as a hotplug the
     * guest sees.  false with why (a static string).  May be NULL: no display to plug into. */
    bool (*monitor)(struct vgpu *v, const struct vgpu_monitor *m, bool configure, const char **why);
    /* The wall clock is now_ns: its display's frames (vblanks, flips) advance to it.  Called
     * between guest slices; may be NULL. */
    void (*tick)(struct vgpu *v, uint64_t now_ns);
    /* Its own lines for `vgpu <vm>` (each ending in a newline) into buf; the length. */
    size_t (*describe)(const struct vgpu *v, char *buf, size_t len);
};

#endif
