/* The i915 vGPU's display (docs/vgpu-i915.md "Display"): the virtual DP monitor of
 * vmm/vgpu/i915/display/ joined to the vGPU.
 *
 *  - BAR0: the display's registers answer after the GT interrupt controller (which keeps the
 *    master interrupt) and before the register file, except those the file keeps for every
 *    i915 vGPU (fuses, power wells, FPGA_DBG, the raw clock): vgpu_i915_display_owns().
 *  - Time: the display's clock is the wall clock (env.cpu_ns): the guest's vblanks are real
 *    time, as its own clock is.  Every access and every tick between slices advances it.
 *  - Interrupts: the display's summary bits go to the GT controller's master, whose rising
 *    edge sends the MSI.
 *  - Scan-out: the live primary plane, checked when armed (a PLANE_SURF write) and at every
 *    composition: a supported format, tiling, stride and size (vdisp_scanout()), and every byte
 *    it reads inside the vGPU's current graphics memory; the reads themselves go through the
 *    guest's own GGTT entries (vgpu_plane_read()), so only its RAM is ever read and nothing of
 *    it is written.  A refused surface shows "no signal (bad surface)", logged once per reason.
 *  - The sprite plane and the cursor are not composed: counted and logged once each.
 */
#include "vmm/vgpu/i915/vgpu_i915.h"

#include "drivers/igpu/gen9_display.h"

#include <stdlib.h>
#include <string.h>

static uint64_t wall_now(const struct vgpu *v)
{
    const struct vgpu_env *e = &v->dev->cfg.env;
    return e->cpu_ns ? e->cpu_ns(e->ctx) : 0;
}

bool vgpu_i915_has_display(const struct vgpu *v)
{
    return vgpu_is_i915(v) && i915_of(v)->disp != NULL;
}

bool vgpu_i915_display_owns(const struct vgpu_i915 *g, uint32_t off)
{
    return g->disp && (vdisp_irq_owns(off) || (vdisp_owns(off) && !vgt_regs_owns(off)));
}

/* After any change of the display's interrupt banks: the master's summary, maybe an MSI. */
static void sync_irq(struct vgpu *v)
{
    struct vgpu_i915 *g = i915_of(v);
    if (vgt_irq_set_display(&g->irq, vdisp_irq_summary(&g->disp->irq)))
        vgpu_i915_send_msi(v);
}

/* Whether the surface a plane set names may be scanned out; the reason if not. */
static const char *surface_refusal(const struct vgpu *v, enum vdisp_scan_result r,
                                   const struct vdisp_scanout *s)
{
    if (r != VDISP_SCAN_PICTURE)
        return r == VDISP_SCAN_PIPE_OFF || r == VDISP_SCAN_PLANE_OFF ? NULL
                                                                     : vdisp_scan_result_name(r);
    if (s->end <= s->first ||
        !igpu_scan_ranges_contain(v->ranges, v->n_ranges, s->first, s->end - s->first))
        return "surface outside its graphics memory";
    return NULL;
}

/* A refusal is counted every time it is found, logged when its reason changes: *last is the
 * reason last logged for the live set (composition) or for the armed one (PLANE_SURF writes). */
static void note_refusal(const struct vgpu *v, const char *why, const struct vdisp_scanout *s,
                         const char **last, const char *which)
{
    struct vgpu_i915 *g = i915_of(v);
    g->disp_st.refused++;
    if (why == *last)
        return;
    *last = why;
    vgpu_logf(v->dev, VGPU_LOG_WARN,
              "vgpu %u: display: plane 1 %s refused for scan-out: %s (surface "
              "%#llx, %ux%u at %u,%u, stride %u, reads %#llx..%#llx): no signal (bad surface)",
              v->id, which, why, (unsigned long long)s->surf, s->w, s->h, s->x, s->y, s->stride,
              (unsigned long long)s->first, (unsigned long long)s->end);
}

/* PLANE_SURF(1) was written: the set it armed is checked now, as the hardware would fetch it. */
static void check_armed(struct vgpu *v)
{
    struct vgpu_i915 *g = i915_of(v);
    struct vdisp_scanout s;
    enum vdisp_scan_result r = vdisp_scanout_regs(g->disp, &g->disp->armed[VDISP_PRIMARY], &s);
    const char *why = surface_refusal(v, r, &s);
    if (why)
        note_refusal(v, why, &s, &g->armed_refused, "as armed");
    else
        g->armed_refused = NULL;
}

uint32_t vgpu_i915_display_read(struct vgpu *v, uint32_t off)
{
    struct vgpu_i915 *g = i915_of(v);
    uint32_t val = vdisp_read(g->disp, off, wall_now(v));
    sync_irq(v); /* time passed: maybe a vblank */
    return val;
}

void vgpu_i915_display_write(struct vgpu *v, uint32_t off, uint32_t val)
{
    struct vgpu_i915 *g = i915_of(v);
    vdisp_write(g->disp, off, val, wall_now(v));
    if (off == GEN9_PLANE_SURF(1))
        check_armed(v);
    sync_irq(v);
}

void vgpu_i915_tick(struct vgpu *v, uint64_t now_ns)
{
    struct vgpu_i915 *g = i915_of(v);
    if (!g->disp)
        return;
    vdisp_tick(g->disp, now_ns);
    sync_irq(v);
}

bool vgpu_i915_monitor(struct vgpu *v, const struct vgpu_monitor *m, bool configure,
                       const char **why)
{
    struct vgpu_i915 *g = i915_of(v);
    struct vdisp_monitor dm = { m->connected, m->width, m->height, m->hz };
    if (configure) {
        if (!vdisp_monitor_ok(&dm, why))
            return false;
        if (!g->disp && !(g->disp = calloc(1, sizeof *g->disp))) {
            *why = "no memory for its display";
            return false;
        }
        vdisp_free(g->disp);
        vdisp_init(g->disp, &dm);
        vgt_regs_set_fuse(&g->regs, GEN9_SKL_DFSM, VDISP_DFSM);
        vgpu_logf(v->dev, VGPU_LOG_INFO,
                  "vgpu %u: display: a DP monitor on port D, %ux%u at %u Hz "
                  "preferred",
                  v->id, m->width, m->height, m->hz);
        return true;
    }
    if (!g->disp) {
        *why = "its vGPU has no display (vgpu-display = \"dp\" gives it one)";
        return false;
    }
    if (!vdisp_plug(g->disp, &dm, wall_now(v), why))
        return false;
    sync_irq(v);
    if (m->connected)
        vgpu_logf(v->dev, VGPU_LOG_INFO,
                  "vgpu %u: display: monitor plugged in, %ux%u at %u Hz "
                  "preferred (hotplug)",
                  v->id, m->width, m->height, m->hz);
    else
        vgpu_logf(v->dev, VGPU_LOG_INFO, "vgpu %u: display: monitor unplugged (hotplug)", v->id);
    return true;
}

void vgpu_i915_display_reset(struct vgpu *v)
{
    struct vgpu_i915 *g = i915_of(v);
    if (!g->disp)
        return;
    vdisp_reset(g->disp);
    vgt_regs_set_fuse(&g->regs, GEN9_SKL_DFSM, VDISP_DFSM);
    g->disp_refused = g->armed_refused = NULL;
    g->overlays_logged = 0;
}

void vgpu_i915_display_free(struct vgpu_i915 *g)
{
    if (!g->disp)
        return;
    vdisp_free(g->disp);
    free(g->disp);
    g->disp = NULL;
}

/* Planes the wall does not compose yet: counted, each logged once while on. */
static void note_overlays(const struct vgpu *v)
{
    struct vgpu_i915 *g = i915_of(v);
    unsigned on = vdisp_overlays(g->disp);
    static const char *const name[VDISP_PLANES] = { "primary", "sprite (plane 2)", "cursor" };
    for (unsigned p = VDISP_SPRITE; p < VDISP_PLANES; p++) {
        if (!(on & (1u << p)))
            continue;
        g->disp_st.overlays++;
        if (g->overlays_logged & (1u << p))
            continue;
        g->overlays_logged |= 1u << p;
        vgpu_logf(v->dev, VGPU_LOG_INFO,
                  "vgpu %u: display: the %s is on and not composed onto the "
                  "wall (the primary plane is)",
                  v->id, name[p]);
    }
}

bool vgpu_i915_plane_get(const struct vgpu *v, struct vgpu_plane *out)
{
    struct vgpu_i915 *g = i915_of(v);
    if (!g->disp)
        return false;
    struct vdisp_scanout s;
    enum vdisp_scan_result r = vdisp_scanout(g->disp, &s);
    out->owned = g->disp->ever_on;
    const char *why = surface_refusal(v, r, &s);
    if (why) {
        note_refusal(v, why, &s, &g->disp_refused, "as scanned out");
        out->refused = why;
        return false;
    }
    if (r != VDISP_SCAN_PICTURE)
        return false;
    if (g->disp_refused) {
        g->disp_refused = NULL;
        vgpu_logf(v->dev, VGPU_LOG_INFO, "vgpu %u: display: plane 1 scanned out again", v->id);
    }
    note_overlays(v);
    *out = (struct vgpu_plane){
        .width = s.w,
        .height = s.h,
        .stride = s.stride,
        .gm = s.surf,
        .pic_width = s.pipe_w,
        .pic_height = s.pipe_h,
        .x = s.x,
        .y = s.y,
        .src_x = s.src_x,
        .src_y = s.src_y,
        .xtiled = s.xtiled,
        .bgr = s.bgr,
        .owned = true,
    };
    return true;
}

bool vgpu_i915_display_info(const struct vgpu *v, struct vgpu_i915_display_info *out)
{
    const struct vgpu_i915 *g = i915_of(v);
    memset(out, 0, sizeof *out);
    if (!g->disp)
        return false;
    const struct vdisp *d = g->disp;
    out->present = true;
    out->connected = d->mon.connected;
    out->width = d->mon.width;
    out->height = d->mon.height;
    out->hz = d->mon.hz;
    out->pipe_on = d->pipe_on;
    out->refresh_mhz = vdisp_refresh_mhz(d);
    out->scan = vdisp_scanout(d, &out->plane);
    out->refused = g->disp_refused;
    out->overlays = vdisp_overlays(d);
    out->st = d->st;
    out->aux = d->aux.st;
    out->refusals = g->disp_st.refused;
    out->frame = d->frame;
    return true;
}
