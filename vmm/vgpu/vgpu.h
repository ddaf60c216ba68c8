/* The mediated vGPU (docs/vgpu.md; the guest's view in docs/vgpu-abi.md and docs/vgpu-i915.md).
 *
 * One `struct vgpu_dev` per physical GPU joins the pieces: it owns one `struct vgpu` per guest
 * (virtual BAR0: register file, PV info page, GGTT window, fences, execlist submission) and runs
 * the render loop that feeds the scanned workloads of the vGPU the scheduler picks to the
 * backend.  Each vGPU has a personality (personality.h: kiosk/kiosk.h, i915/i915.h), the GPU
 * its guest's driver expects.  Graphics memory is gtt/'s, scheduling is sched/'s, command
 * checking is the scanner's, the GPU is any igpu backend.
 *
 * Pure: no hardware access and no globals.  What the device needs from the hypervisor comes in
 * struct vgpu_env (guest RAM, the render clock, running the GPU, logging), so the whole
 * pipeline runs in host tests against the software model. */
#ifndef TESSERA_VMM_VGPU_VGPU_H
#define TESSERA_VMM_VGPU_VGPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/igpu/igpu.h"
#include "drivers/igpu/scanner/scanner.h"
#include "gtt/gtt.h"
#include "sched/sched.h"
#include "tessera/abi/vgpu.h"
#include "tessera/limits.h"
#include "vmm/vpci/vgpu_pci.h" /* VGPU_BAR0_SIZE and the BARs' defaults */

#define VGPU_MAX          TESSERA_MAX_GUESTS /* one vGPU per guest; also "none" */
#define VGPU_MMIO_SIZE    (2u << 20)         /* the register half */
#define VGPU_GGTT_OFFSET  (8u << 20)         /* GGTT entries from here (Gen9: BAR0 + 8 MiB) */
#define VGPU_QUEUE_MAX    16u                /* workloads queued + in flight per vGPU */
#define VGPU_SLICE_MAX_DW 1024u              /* one workload's ring bytes / 4 */
#define VGPU_SLICE_MAX_BATCHES \
    8u                                /* ring-level batch starts in one i915 workload
                                                 * (the scanner follows 16 with nested ones) */
#define VGPU_SHADOW_BYTES (16u << 10) /* batch copies of one workload */
#define VGPU_CSB_ENTRIES  6u          /* Gen9 CSB depth */
#define VGPU_REJECT_LOG   4u          /* last rejections kept for `vgpu` */
#define VGPU_OTHER_REGS   128u        /* plain-storage registers per vGPU */
/* Fence work (pool copies and EPT remaps, a page each) done inside one guest MMIO exit, and per
 * vGPU in each vgpu_dev_fence_work() call: bounded, so no guest holds the CPU (vgpu_fence.c).
 * An exit's share is the smaller: no other guest can cut an exit short (about 0.25 ms for 16
 * pages under Bochs). */
#define VGPU_FENCE_EXIT_PAGES 16u
#define VGPU_FENCE_POLL_PAGES 64u

enum vgpu_log_level { VGPU_LOG_DEBUG, VGPU_LOG_INFO, VGPU_LOG_WARN, VGPU_LOG_ERROR };

/* What the device needs from the hypervisor. */
struct vgpu_env {
    void *ctx;
    /* Host pointer to [gpa, gpa + len) of guest `vm`'s RAM, NULL if any of it is outside. */
    void *(*guest_ram)(void *ctx, unsigned vm, uint64_t gpa, uint64_t len);
    /* The render clock in ns: the scheduler's clock and the watchdog's. */
    uint64_t (*now_ns)(void *ctx);
    /* Let the GPU work on the blitter for up to budget_ns; returns the GPU time used (the
     * model executes here; real hardware runs by itself and returns the time that passed). */
    uint64_t (*gpu_run)(void *ctx, uint64_t budget_ns);
    /* Wall-clock ns for measuring the CPU time GGTT copying costs (R_copy), and the clock of
     * i915 guests' displays (their vblanks are real time, as the guest's own clock is); may be
     * NULL (then no display advances). */
    uint64_t (*cpu_ns)(void *ctx);
    /* Why the blitter stopped, or NULL if it has not faulted (reset clears it). */
    const char *(*gpu_fault)(void *ctx);
    void (*log)(void *ctx, enum vgpu_log_level level, const char *msg);
    /* CPU access to [off, off + len) of the physical aperture (BAR2), translated by the GGTT
     * and de-tiled by the fences as the GPU's aperture does; 0 on success.  The vGPU reaches a
     * guest's fenced pages through it (their copies live in the fence pool).  May be NULL:
     * fenced pages are then refused. */
    int (*aperture_rw)(void *ctx, uint64_t off, void *buf, size_t len, bool write);
    /* For personalities that shadow PPGTTs (i915); may be NULL, and then no vGPU can have one. */
    /* A zeroed 4 KiB host page for the PPGTT shadow: its physical address and where the
     * hypervisor reaches it (the same, identity-mapped, in the image); non-zero: none left. */
    int (*page_alloc)(void *ctx, uint64_t *hpa, void **va);
    void (*page_free)(void *ctx, uint64_t hpa, void *va);
    /* The host-physical address of guest vm's RAM page holding gpa (the PPGTT shadow's
     * leaves: the GPU follows them), and where the hypervisor reaches physical memory. */
    int (*guest_phys)(void *ctx, unsigned vm, uint64_t gpa, uint64_t *pa);
    void *(*phys_ptr)(void *ctx, uint64_t pa, uint64_t len);
    /* Write-protect (on) or give back (off) guest vm's RAM page gpa in its EPT. */
    void (*protect)(void *ctx, unsigned vm, uint64_t gpa, bool on);
    /* Send guest vm the MSI its driver programmed in the vGPU's MSI capability; false if it
     * was not delivered (MSI not enabled, or the guest's APIC did not take it). */
    bool (*msi)(void *ctx, unsigned vm);
    /* True when another CPU waits for what a render step holds (the hypervisor's state, on
     * SMP): work run on the CPU (the i915 engines' commands) then ends its step at the next
     * whole point once it has made progress, so that CPU's exits wait for one command or one
     * register, not a whole step.  May be NULL (one CPU: nobody waits). */
    bool (*cpu_wanted)(void *ctx);
};

/* Graphics memory the hypervisor keeps for itself (gtt layout's host area), already mapped by
 * host GGTT entries: `bytes` at graphics address `gm`, reachable at `hva` in the hypervisor. */
struct vgpu_host_mem {
    uint64_t gm;
    void *hva;
    uint64_t bytes;
};

struct vgpu_dev_config {
    struct gtt *gtt;
    struct sched *sched;
    struct igpu *igpu;
    struct vgpu_host_mem host;
    uint32_t engine_hws_gm; /* the blitter's own status page (host area, not in `host`) */
    struct vgpu_env env;
    unsigned max_vgpus;        /* the host area is shared by this many */
    bool balloon_controller;   /* a controller decides growth requests (else refused) */
    uint64_t render_budget_ns; /* GPU time per render-loop step (0: 1 ms) */
    /* Engines a personality runs on the CPU (the i915 guest's RCS/VCS/VECS) get schedulers of
     * this configuration (read at creation; NULL, or no env.cpu_ns to be their clock: none,
     * and such personalities cannot start), and run for at most cpu_budget_ns of CPU time per
     * render-loop step (0: VGPU_CPU_BUDGET_NS). */
    const struct sched_config *cpu_sched;
    uint64_t cpu_budget_ns;
};
#define VGPU_CPU_BUDGET_NS 200000ull

/* The guest's first frame since it started (vgpu_create, vgpu_guest_reset): host wall times
 * (env.cpu_ns) of the start, its first submission, the first dispatch of its work and the
 * first workload retired having run.  What a guest waits for before anything of it is on the
 * wall; `vgpu` shows it.  The flags say which have happened (a host without a clock reads 0). */
struct vgpu_first_frame {
    uint64_t start_ns, submit_ns, dispatch_ns, done_ns;
    bool submitted, dispatched, done;
};

/* Why the last workloads were refused, for `vgpu`. */
struct vgpu_reject {
    uint32_t code; /* TESSERA_REJECT_* */
    char why[120];
};

struct vgpu_stats {
    uint64_t mmio_reads, mmio_writes, other_regs;
    uint64_t ggtt_writes, ggtt_refused;
    uint64_t fence_writes, fence_refused;
    uint64_t fence_work_pages; /* pages of fence work done for it (pool copies, remaps) */
    uint64_t submitted, queued, completed, rejected, dropped;
    uint64_t resets;
    uint64_t gpu_ns; /* GPU time its workloads used */
    /* Host wall time (env.cpu_ns) of its workloads that ran and retired: `timed` of them, from
     * the guest's submission to the first dispatch to the GPU (waiting behind other vGPUs' work),
     * and from the submission to retirement (what the guest waits for a frame).  rendering: CPU
     * time the GPU spent on its work (the software model's execution; a real GPU runs by itself,
     * so this is only the time the host spent driving it). */
    uint64_t timed, wait_ns, turnaround_ns, render_cpu_ns;
    /* CPU time spent writing its entries into the physical GGTT: the switches that brought it
     * in and the write-aheads done for it.  Done for it, so counted in its CPU share like its
     * rendering (vgpu_render_cpu_ns). */
    uint64_t copy_cpu_ns;
    /* Host CPU time scanning its submissions (copying and checking their commands, in its
     * exits): in all and the longest; the estimate of the next one is the recent longest,
     * decaying by an eighth per submission. */
    uint64_t scan_ns, scan_max_ns, scan_est_ns;
    uint64_t balloon_requests, balloon_granted, balloon_refused;
    struct vgpu_first_frame first; /* of its current run */
    /* Engines run on the CPU (the i915 guest's MI-only ones): submissions queued and finished,
     * the CPU each engine used for it (in render_cpu_ns too), and the longest single step. */
    uint64_t cpu_submitted, cpu_completed;
    uint64_t cpu_engine_ns[IGPU_NUM_GT_ENGINES];
    uint64_t cpu_step_max_ns;
};

/* One vGPU as the shell shows it. */
struct vgpu_info {
    bool exists;
    unsigned vm;
    const char *personality;    /* its personality's name ("kiosk", "i915") */
    struct gtt_range low, high; /* avail_rs as the guest sees it */
    unsigned slots, fences;
    uint32_t queued; /* queued + in flight */
    bool display_enabled;
    uint32_t fb_width, fb_height, fb_stride;
    uint64_t fb_gm;
    struct vgpu_stats st;
    unsigned n_rejects; /* valid entries of rejects[], newest first */
    struct vgpu_reject rejects[VGPU_REJECT_LOG];
};

/* An engine run on the CPU, as the render loop ran it. */
struct vgpu_cpu_engine_stats {
    uint64_t steps, dispatches, switches, workloads, preemptions, watchdog_resets, faults;
    uint64_t busy_ns; /* CPU time it ran guests' work */
};

/* The render loop's own numbers (`sched` shows them with the scheduler's). */
struct vgpu_render_stats {
    uint64_t dispatches, workloads, switches;
    uint64_t preemptions;                     /* turns cut inside a workload */
    uint64_t retired;                         /* workloads that ran, retired to their guest */
    uint64_t drains, drains_busy;             /* drains, and those the GPU outlasted */
    uint64_t entries_switch, entries_predict; /* GGTT entries written on switches / ahead */
    uint64_t ahead_used, ahead_wasted;        /* entries_predict for the vGPU the next switch
                                                 * brought in / for another (gtt's count) */
    uint64_t busy_ns;                         /* GPU time used by guests' work */
    uint64_t watchdog_resets, gpu_faults;
    uint64_t copy_cpu_ns;    /* CPU time spent writing them, of which: */
    uint64_t copy_switch_ns; /* ... on the switch path (the GPU waits) */
    uint64_t copy_ahead_ns;  /* ... ahead (the GPU runs the owner's work) */
    uint64_t balloon_periods, balloon_events;
    struct gtt_ctl_report last_period;
    /* Re-placement (vgpu_move.c) */
    uint64_t place_periods;           /* placement periods run */
    uint64_t moves_asked, moves_done; /* requests posted, moves made */
    uint64_t moves_busy, moves_withdrawn, moves_refused;
    uint64_t entries_move; /* old ranges scrubbed by moves (gtt's count) */
    uint64_t busy_vgpus;   /* busy in the last placement period */
    /* The floor of each placement period (gtt_floor_weighted over the vGPUs brought in, each
     * weighted by how often), summed: divided by floor_switches it is the least any placement
     * could have written per switch; with the configured sizes, and with those held. */
    uint64_t floor_entries, floor_held_entries;
    uint64_t floor_switches; /* switches those sums cover */
};

struct vgpu_dev;
struct vgpu;
struct vgpu_personality;

int vgpu_dev_create(const struct vgpu_dev_config *cfg, struct vgpu_dev **out);
void vgpu_dev_destroy(struct vgpu_dev *d);

/* Creates the vGPU of guest `vm` (its gtt vGPU and sched vGPU must exist with the same id)
 * with personality `ops` (vgpu_kiosk, vgpu_i915: what its guest's driver expects).  tile_w x
 * tile_h is its place on the wall.  Host-area memory is set aside for its shadow context, ring
 * and batch copies; failures (no memory, a personality that cannot start: the reason is
 * logged) return a negative value. */
int vgpu_create(struct vgpu_dev *d, unsigned vm, uint32_t tile_w, uint32_t tile_h,
                const struct vgpu_personality *ops);
struct vgpu *vgpu_get(struct vgpu_dev *d, unsigned vm);
/* Gives a vGPU whose guest has not submitted work yet another personality, from power-on
 * state; 0, or -1 (logged) with the old one kept. */
int vgpu_set_personality(struct vgpu *v, const struct vgpu_personality *ops);
const char *vgpu_personality_name(const struct vgpu *v);
/* The guest wrote its RAM page gpa, which the vGPU write-protected (a PPGTT table page): true
 * if the vGPU took the page back (the guest re-executes the write); false if the page is not
 * the vGPU's to protect. */
bool vgpu_table_write(struct vgpu *v, uint64_t gpa);

/* The guest's device was reset (guest restart): registers, queue and shadow state rebuilt. */
void vgpu_guest_reset(struct vgpu *v);

/* BAR0 access at `off` (< VGPU_BAR0_SIZE) of size 1, 2, 4 or 8.  false refuses the access
 * (misaligned or crossing a register); the caller stops the guest for that. */
bool vgpu_mmio_read(struct vgpu *v, uint64_t off, unsigned size, uint64_t *val);
bool vgpu_mmio_write(struct vgpu *v, uint64_t off, unsigned size, uint64_t val);
/* The host CPU time (ns) that writing val at off would take now: a write that submits work is
 * as long as the scan of its last submissions (struct vgpu_stats scan_*), others 0. */
uint64_t vgpu_mmio_write_cost(const struct vgpu *v, uint64_t off, unsigned size, uint64_t val);

/* A CPU access to the guest's aperture (BAR2) at `off` that reached the hypervisor instead of
 * RAM (size 1..8): a fenced page (through its fence-pool copy), a page whose GGTT entry is not
 * present (reads 0, writes dropped), or an access straddling into such a page from a
 * ladder-mapped one (that part goes to the guest's RAM).  Every byte is served from the guest's
 * own pages: an access is cut at page and fence boundaries.  false refuses it. */
bool vgpu_aperture_read(struct vgpu *v, uint64_t off, unsigned size, uint64_t *val);
bool vgpu_aperture_write(struct vgpu *v, uint64_t off, unsigned size, uint64_t val);

/* The render loop: one step (retire, watchdog, balloon, dispatch, run the GPU a little).
 * Returns true if the GPU has work (call again soon). */
bool vgpu_render_step(struct vgpu_dev *d);
/* The fence work guests' fence writes left: up to max_pages pages for each vGPU with some
 * (VGPU_FENCE_POLL_PAGES between time slices).  True if some is still left. */
bool vgpu_dev_fence_work(struct vgpu_dev *d, uint32_t max_pages);

/* Operator actions. */
int vgpu_set_weight(struct vgpu_dev *d, unsigned vm, uint32_t weight);
/* Grows (+) or shrinks (-) the vGPU's high-GM slots now; the guest sees the new avail_rs. */
int vgpu_balloon_adjust(struct vgpu_dev *d, unsigned vm, int delta, char *err, size_t errlen);
/* Resets the vGPU's engine state and drops its queue (as the watchdog does). */
int vgpu_reset(struct vgpu_dev *d, unsigned vm, const char *why);

/* One placement period (every 500 ms is what the hypervisor uses; vgpu_move.c): the vGPUs
 * that worked since the last period are planned apart (gtt_plan) and the guests that follow
 * re-placements are asked to move; vGPUs that stayed idle stop counting as active in gtt;
 * the floor of the period is added to the stats. */
void vgpu_place_period(struct vgpu_dev *d);

/* One balloon-controller period: w_ppm is the measured vCPU wait share, rcopy_ppm the share of
 * CPU time spent copying GGTT entries since the last period (the caller measures both).
 * Returns 0, a negative error, or VGPU_BALLOON_BUSY: the running workload could not be
 * preempted or finished within VGPU_DRAIN_MAX_NS, and the period was skipped (counted in
 * drains_busy; the next period tries again). */
#define VGPU_BALLOON_BUSY 1
/* A drain (for the balloon, or the operator) gives the running work this much time (the render
 * clock: GPU time on the model) to be preempted or to finish; past it the GPU is busy. */
#define VGPU_DRAIN_MAX_NS 2000000ull
int vgpu_balloon_period(struct vgpu_dev *d, const struct gtt_ctl_params *p, uint32_t w_ppm,
                        uint32_t rcopy_ppm, struct gtt_ctl_report *rep);

/* Introspection. */
void vgpu_get_info(const struct vgpu *v, struct vgpu_info *out);
/* The personality's own lines for `vgpu <vm>` into buf (each ending in a newline; "" if it has
 * none); returns the length. */
size_t vgpu_describe(const struct vgpu *v, char *buf, size_t len);
void vgpu_render_stats_get(const struct vgpu_dev *d, struct vgpu_render_stats *out);
/* st.retired, cheaply: the host loop stops rendering when it grows (a guest waits for that). */
uint64_t vgpu_render_retired(const struct vgpu_dev *d);
/* The vGPU whose work is on the engine (VGPU_MAX: none), and the CPU its rendering and the GGTT
 * copying for it took so far (st.render_cpu_ns + st.copy_cpu_ns): the host loop charges it to
 * that guest's CPU share. */
unsigned vgpu_render_owner(const struct vgpu_dev *d);
/* The same for an engine run on the CPU (the i915 guest's RCS/VCS/VECS), its scheduler (NULL if
 * there is none) and its numbers. */
unsigned vgpu_cpu_engine_owner(const struct vgpu_dev *d, enum igpu_engine e);
struct sched *vgpu_cpu_engine_sched(const struct vgpu_dev *d, enum igpu_engine e);
void vgpu_cpu_engine_stats_get(const struct vgpu_dev *d, enum igpu_engine e,
                               struct vgpu_cpu_engine_stats *out);
uint64_t vgpu_render_cpu_ns(const struct vgpu_dev *d, unsigned vm);
/* The GPU executed `cpu_ns` of CPU time for vGPU `vm` outside gpu_run (the software model run
 * beside the render steps): counted in its st.render_cpu_ns like what gpu_run took. */
void vgpu_render_charge_cpu(struct vgpu_dev *d, unsigned vm, uint64_t cpu_ns);
/* The guest's picture as its display registers describe it: a surface of width x height
 * pixels (XRGB8888, or XBGR8888 when bgr), rows stride bytes apart, at graphics address gm
 * (linear, or X-tiled from its 4 KiB-aligned base), read from pixel (src_x, src_y) on, placed at
 * (x, y) of a picture of pic_width x pic_height (black around it; 0: the plane is the picture).
 * vgpu_plane_get() is false if there is no picture: the display is off, or the guest named a
 * surface the vGPU refuses to scan out (refused says why, e.g. outside its graphics memory).
 * owned: the guest's display driver has taken the display over (a Linux guest's firmware
 * framebuffer is stale from then on). */
struct vgpu_plane {
    uint32_t width, height, stride;
    uint64_t gm;
    uint32_t pic_width, pic_height, x, y, src_x, src_y;
    bool xtiled, bgr, owned;
    const char *refused;
};
bool vgpu_plane_get(const struct vgpu *v, struct vgpu_plane *out);
/* Bytes [off, off + len) of the picture p describes (rows pic_width * 4 bytes apart, XRGB8888,
 * black outside the plane), read through the vGPU's GGTT entries: false if any page is not the
 * guest's (then nothing is assumed about buf).  off and len whole pixels, inside one row. */
bool vgpu_plane_read(const struct vgpu *v, const struct vgpu_plane *p, uint64_t off, void *buf,
                     size_t len);

/* A display's monitor (personality.h `monitor`): connected, and its preferred mode. */
struct vgpu_monitor {
    bool connected;
    uint32_t width, height, hz;
};
/* Configures (before the guest runs) or hot-plugs the vGPU's monitor; false with why. */
bool vgpu_set_monitor(struct vgpu *v, const struct vgpu_monitor *m, bool configure,
                      const char **why);
/* Every vGPU's display advances to now_ns (wall time): vblanks and flips, their interrupts.
 * The host calls it between guest slices. */
void vgpu_dev_tick(struct vgpu_dev *d, uint64_t now_ns);
bool vgpu_gm_read(const struct vgpu *v, uint64_t gm, void *buf, size_t len);

const char *vgpu_reject_name(uint32_t code);

#endif
