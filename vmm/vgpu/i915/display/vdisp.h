/*
 * The virtual DisplayPort monitor of an i915 guest, and the Skylake display engine registers
 * i915 6.1 drives it through (docs/vgpu-i915.md, "Display").  One per vGPU whose configuration
 * says vgpu-display = "dp".
 *
 * What the guest sees:
 *  - one pipe (A; B and C fused off in SKL_DFSM, which the register file holds), one DDI port
 *    (D, the only one SFUSE_STRAP and the VBT name), its AUX channel with the monitor behind it
 *    (vdisp_aux.h), the PLLs, power and buffers i915 programs, the interrupt banks
 *    (vdisp_irq.h), and plain storage for every other display register (vdisp_store.h);
 *  - registers whose value follows another (GVT-g gvt/handlers.c for the same registers):
 *    PIPECONF's state bit follows its enable, DDI_BUF_CTL's idle bit the buffer's enable,
 *    DP_TP_STATUS's idle-done the idle pattern in DP_TP_CTL, LCPLL1/2 lock their enable,
 *    DPLL_STATUS reads the four PLLs' locks, DBUF's state its request;
 *  - the pipe's clock (vdisp_pipe.c): from the enable of PIPECONF on, a vblank every frame
 *    period of the programmed mode (pixel clock from the link M/N and the port's PLL rate, as
 *    i915 intel_dotclock_calculate() does, never faster than the monitor's refresh), with
 *    PIPE_FRMCOUNT counting frames (missed periods included), PIPEDSL reading the scanline the
 *    time says, and the vblank interrupt raised once per vblank the guest has not masked;
 *  - planes latched at vblank: a PLANE_SURF (CURBASE) write arms the plane's registers as
 *    written, the next vblank makes them live and raises the plane's flip-done; an async flip
 *    (PLANE_CTL bit 9) is live at once; with the pipe off a write is live at once.  What the
 *    hypervisor scans out is always a live set: whole frames;
 *  - hotplug (vdisp_plug()): presence in SDEISR bit 23, a long pulse in PCH_PORT_HOTPLUG and
 *    the south interrupt.
 *
 * Time is the caller's (ns, the guest's wall clock): every access and vdisp_tick() first
 * advances the pipe to `now`.  Work per call is bounded (one AUX request of at most 16 bytes,
 * one vblank event whatever the number of frames missed).
 *
 * Pure: the caller routes BAR0 offsets here (vdisp_owns()), turns vdisp_irq_summary() into the
 * master interrupt and MSI, and checks the surfaces it scans out against the guest's memory.
 */
#ifndef TESSERA_VMM_VGPU_I915_DISPLAY_VDISP_H
#define TESSERA_VMM_VGPU_I915_DISPLAY_VDISP_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vgpu/i915/display/vdisp_aux.h"
#include "lib/edid.h"
#include "vmm/vgpu/i915/display/vdisp_irq.h"
#include "vmm/vgpu/i915/display/vdisp_store.h"

/* SKL_DFSM with a display: pipes B and C fused off (one CRTC, pipe A, with its primary plane,
 * one sprite and the cursor), HDCP off (no content-protection property to emulate), CDCLK
 * limit 675 MHz (bits 24:23 = 0). */
#define VDISP_DFSM (GEN9_DFSM_PIPE_B_DISABLE | GEN9_DFSM_PIPE_C_DISABLE | GEN9_DFSM_HDCP_DISABLE)

/* The monitor plugged into port D. */
struct vdisp_monitor {
    bool connected;
    uint32_t width, height, hz; /* its preferred mode */
};

enum vdisp_plane { VDISP_PRIMARY, VDISP_SPRITE, VDISP_CURSOR, VDISP_PLANES };

/* One plane's double-buffered registers (the cursor uses ctl, surf = CURBASE and pos). */
struct vdisp_plane_regs {
    uint32_t ctl, stride, pos, size, offset, surf;
};

struct vdisp_stats {
    uint64_t reads, writes;
    uint64_t frames;        /* vblanks counted (PIPE_FRMCOUNT's increments) */
    uint64_t vblank_events; /* vblank events offered to the interrupt bank */
    uint64_t flips;         /* surfaces armed (all planes) */
    uint64_t latched;       /* armed sets made live at a vblank */
    uint64_t async_flips;
    uint64_t pipe_enables;
    uint64_t aux; /* AUX transactions */
    uint64_t hotplugs;
    uint64_t ro_ignored; /* writes to read-only registers */
};

struct vdisp {
    struct vdisp_monitor boot; /* configured: what a reset plugs in */
    struct vdisp_monitor mon;  /* plugged in now */
    struct vdisp_store store;
    struct vdisp_irq irq;
    struct vdisp_aux aux;
    /* the pipe's clock */
    bool pipe_on, ever_on; /* ever_on: since the last reset */
    uint64_t period_ns, last_vblank_ns, next_vblank_ns;
    uint32_t htotal, vtotal, vbl_start, clock_khz;
    uint32_t frame, flipcount;
    /* planes: armed (pending a vblank) and live */
    struct vdisp_plane_regs armed[VDISP_PLANES], live[VDISP_PLANES];
    bool pending[VDISP_PLANES];
    struct vdisp_stats st;
};

/* A monitor the configuration may plug in: false with why (a static string) if i915 could not
 * drive it (edid_mode_make()'s limits) or it is not connected. */
bool vdisp_monitor_ok(const struct vdisp_monitor *m, const char **why);
/* Creation with monitor m (checked by the caller), then the reset state. */
void vdisp_init(struct vdisp *d, const struct vdisp_monitor *m);
void vdisp_free(struct vdisp *d);
/* Power-on state: every register as after a reset ("all off": no power well, PLL, pipe or
 * plane on; the straps, VGA plane off, DDI buffers idle), the configured monitor plugged in,
 * the pipe's clock stopped.  Counters keep counting. */
void vdisp_reset(struct vdisp *d);

/* Whether BAR0 offset off is a display register (the caller asks its own register file first
 * for the few it shares: fuses, power wells). */
bool vdisp_owns(uint32_t off);
uint32_t vdisp_read(struct vdisp *d, uint32_t off, uint64_t now);
void vdisp_write(struct vdisp *d, uint32_t off, uint32_t val, uint64_t now);
/* The pipe advanced to now: vblanks counted, armed planes latched, events raised. */
void vdisp_tick(struct vdisp *d, uint64_t now);
/* Unplugs (m->connected false) or plugs in m (a new EDID and DPCD; the link must train again)
 * and pulses hotplug.  false with why if m cannot be driven. */
bool vdisp_plug(struct vdisp *d, const struct vdisp_monitor *m, uint64_t now, const char **why);

/* The scanline PIPEDSL reads at now (the pipe already advanced). */
uint32_t vdisp_pipedsl(const struct vdisp *d, uint64_t now);
/* The pipe's refresh in millihertz (0: pipe off). */
uint32_t vdisp_refresh_mhz(const struct vdisp *d);

/* What the primary plane scans out now (its live registers), decoded.  Pure checks only:
 * format, tiling, stride, size, position; the caller checks the memory. */
struct vdisp_scanout {
    uint32_t pipe_w, pipe_h; /* PIPESRC: the picture */
    uint32_t x, y, w, h;     /* the plane's rectangle in it */
    uint32_t src_x, src_y;   /* PLANE_OFFSET: the first pixel in the surface */
    uint64_t surf;           /* graphics address, 4 KiB aligned */
    uint32_t stride;         /* bytes */
    bool xtiled, bgr;
    uint32_t rotation;   /* PLANE_CTL 1:0, not applied */
    uint64_t first, end; /* graphics addresses the plane reads: [first, end) */
};
enum vdisp_scan_result {
    VDISP_SCAN_PICTURE = 0,
    VDISP_SCAN_PIPE_OFF, /* no signal: nothing to show */
    VDISP_SCAN_PLANE_OFF,
    VDISP_SCAN_BAD_FORMAT, /* refused: bad surface */
    VDISP_SCAN_BAD_TILING,
    VDISP_SCAN_BAD_STRIDE,
    VDISP_SCAN_BAD_SIZE,
};
enum vdisp_scan_result vdisp_scanout(const struct vdisp *d, struct vdisp_scanout *out);
/* The same for a given set of the primary's registers (the armed one, when it is armed). */
enum vdisp_scan_result vdisp_scanout_regs(const struct vdisp *d, const struct vdisp_plane_regs *r,
                                          struct vdisp_scanout *out);
const char *vdisp_scan_result_name(enum vdisp_scan_result r);
/* Live planes besides the primary that are on: 1 << VDISP_SPRITE, 1 << VDISP_CURSOR. */
unsigned vdisp_overlays(const struct vdisp *d);

/* ---- vdisp_pipe.c, for vdisp.c ---- */
void vdisp_pipe_advance(struct vdisp *d, uint64_t now);
void vdisp_pipe_enable(struct vdisp *d, bool on, uint64_t now);
/* A write to a plane register at off (already stored): arms on PLANE_SURF / CURBASE. */
void vdisp_plane_write(struct vdisp *d, uint32_t off);
/* Reads the pipe derives (PIPEDSL, counters, live surfaces); false if off is none. */
bool vdisp_pipe_read(const struct vdisp *d, uint32_t off, uint64_t now, uint32_t *val);

#endif
