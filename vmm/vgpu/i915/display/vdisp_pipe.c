/*
 * Pipe A's clock and its planes (vdisp.h says what the guest sees and why).
 *
 * The clock: at the enable of PIPECONF the frame period is taken from the programmed mode:
 * HTOTAL x VTOTAL pixels at the pixel clock i915 set up, link_m x port clock / link_n
 * (intel_dotclock_calculate(); the port clock is twice the DPLL_CTRL1 link rate of the PLL
 * DPLL_CTRL2 gives port D, skl_ddi_lcpll_get_freq()), bounded by the monitor's refresh (never
 * more vblank interrupts than it promises) and EDID_MIN_HZ.  Without a clock (M/N not written)
 * the monitor's refresh is the period.  The first vblank is one period after the enable.
 *
 * PIPEDSL: hardware reads the line being scanned minus one (i915 adds scanline_offset 1 for
 * DP), and a vblank starts at line vblank_start, so right after a vblank PIPEDSL reads
 * vblank_start - 1; in between it advances linearly with time, wrapping at vtotal.
 */
#include "vmm/vgpu/i915/display/vdisp.h"

#include "drivers/igpu/gen9_display.h"

#define NS_PER_S 1000000000ull

static const uint32_t plane_n[VDISP_CURSOR] = { 1, 2 }; /* PLANE_*(pipe A, n) */

/* ---- the clock ---------------------------------------------------------------------------- */

static uint32_t field_lo(uint32_t v)
{
    return (v & GEN9_TIMING_LOW_MASK) + 1u;
}
static uint32_t field_hi(uint32_t v)
{
    return (v >> GEN9_TIMING_HIGH_SHIFT & GEN9_TIMING_LOW_MASK) + 1u;
}

/* The pixel clock i915 programmed for port D, in kHz; 0 if it cannot be told. */
static uint32_t pixel_clock_khz(const struct vdisp *d)
{
    static const uint32_t rate_mhz[8] = { 2700, 1350, 810, 1620, 1080, 2160, 0, 0 };
    uint32_t ctrl2 = vdisp_store_get(&d->store, GEN9_DPLL_CTRL2);
    if (ctrl2 & GEN9_DPLL_CTRL2_DDI_CLK_OFF(GEN9_PORT_D))
        return 0;
    uint32_t pll = GEN9_DPLL_CTRL2_DDI_CLK_SEL(ctrl2, GEN9_PORT_D);
    uint32_t port_khz = rate_mhz[GEN9_DPLL_CTRL1_LINK_RATE(pll, vdisp_store_get(&d->store,
                                                                                GEN9_DPLL_CTRL1))] *
                        200u;
    uint64_t m = vdisp_store_get(&d->store, GEN9_PIPE_LINK_M1_A) & GEN9_LINK_MN_MASK;
    uint64_t n = vdisp_store_get(&d->store, GEN9_PIPE_LINK_N1_A) & GEN9_LINK_MN_MASK;
    if (!n || !m || !port_khz)
        return 0;
    uint64_t khz = (m * port_khz + n - 1) / n;
    return khz > UINT32_MAX ? 0 : (uint32_t)khz;
}

void vdisp_pipe_enable(struct vdisp *d, bool on, uint64_t now)
{
    if (on == d->pipe_on)
        return;
    d->pipe_on = on;
    if (!on)
        return; /* the counter keeps its value */
    d->ever_on = true;
    d->st.pipe_enables++;
    d->htotal = field_hi(vdisp_store_get(&d->store, GEN9_HTOTAL_A));
    d->vtotal = field_hi(vdisp_store_get(&d->store, GEN9_VTOTAL_A));
    uint32_t vblank = vdisp_store_get(&d->store, GEN9_VBLANK_A);
    d->vbl_start = vblank ? field_lo(vblank) : field_lo(vdisp_store_get(&d->store, GEN9_VTOTAL_A));
    if (d->vbl_start > d->vtotal)
        d->vbl_start = d->vtotal;
    d->clock_khz = pixel_clock_khz(d);
    uint32_t hz = d->mon.hz ? d->mon.hz : EDID_MAX_HZ;
    uint64_t fastest = NS_PER_S / hz, slowest = NS_PER_S / EDID_MIN_HZ;
    uint64_t period = d->clock_khz ? (uint64_t)d->htotal * d->vtotal * 1000000ull / d->clock_khz
                                   : fastest;
    d->period_ns = period < fastest ? fastest : period > slowest ? slowest : period;
    d->last_vblank_ns = now;
    d->next_vblank_ns = now + d->period_ns;
}

uint32_t vdisp_refresh_mhz(const struct vdisp *d)
{
    return d->pipe_on && d->period_ns ? (uint32_t)(NS_PER_S * 1000u / d->period_ns) : 0;
}

uint32_t vdisp_pipedsl(const struct vdisp *d, uint64_t now)
{
    if (!d->pipe_on || !d->vtotal)
        return 0;
    uint64_t since = now > d->last_vblank_ns ? now - d->last_vblank_ns : 0;
    uint64_t lines = since < d->period_ns ? since * d->vtotal / d->period_ns : d->vtotal - 1u;
    return (uint32_t)((d->vbl_start - 1u + lines) % d->vtotal) & GEN9_PIPEDSL_LINE_MASK;
}

/* ---- planes ------------------------------------------------------------------------------- */

static void snapshot(const struct vdisp *d, enum vdisp_plane p, struct vdisp_plane_regs *r)
{
    if (p == VDISP_CURSOR) {
        *r = (struct vdisp_plane_regs){ .ctl = vdisp_store_get(&d->store, GEN9_CURCNTR_A),
                                        .surf = vdisp_store_get(&d->store, GEN9_CURBASE_A),
                                        .pos = vdisp_store_get(&d->store, GEN9_CURPOS_A) };
        return;
    }
    uint32_t n = plane_n[p];
    *r = (struct vdisp_plane_regs){
        .ctl = vdisp_store_get(&d->store, GEN9_PLANE_CTL(n)),
        .stride = vdisp_store_get(&d->store, GEN9_PLANE_STRIDE(n)),
        .pos = vdisp_store_get(&d->store, GEN9_PLANE_POS(n)),
        .size = vdisp_store_get(&d->store, GEN9_PLANE_SIZE(n)),
        .offset = vdisp_store_get(&d->store, GEN9_PLANE_OFFSET(n)),
        .surf = vdisp_store_get(&d->store, GEN9_PLANE_SURF(n)),
    };
}

/* The flip-done bit a plane raises when its armed set goes live (cursor: none). */
static uint32_t flip_done(enum vdisp_plane p)
{
    return p == VDISP_CURSOR ? 0 : GEN9_PIPE_PLANE_FLIP_DONE((uint32_t)p);
}

void vdisp_plane_write(struct vdisp *d, uint32_t off)
{
    enum vdisp_plane p;
    if (off == GEN9_PLANE_SURF(1))
        p = VDISP_PRIMARY;
    else if (off == GEN9_PLANE_SURF(2))
        p = VDISP_SPRITE;
    else if (off == GEN9_CURBASE_A)
        p = VDISP_CURSOR;
    else
        return; /* only the surface write arms */
    d->st.flips++;
    if (p == VDISP_PRIMARY)
        d->flipcount++;
    snapshot(d, p, &d->armed[p]);
    bool async = p != VDISP_CURSOR && (d->armed[p].ctl & GEN9_PLANE_CTL_ASYNC_FLIP);
    if (!d->pipe_on || async) {
        /* No frame to wait for (pipe off), or the guest asked not to wait (async flip). */
        d->live[p] = d->armed[p];
        d->pending[p] = false;
        if (async && d->pipe_on) {
            d->st.async_flips++;
            vdisp_irq_event(&d->irq, VDISP_BANK_PIPE_A, flip_done(p));
        }
        return;
    }
    d->pending[p] = true;
}

void vdisp_pipe_advance(struct vdisp *d, uint64_t now)
{
    if (!d->pipe_on || now < d->next_vblank_ns)
        return;
    uint64_t missed = (now - d->next_vblank_ns) / d->period_ns;
    d->frame += (uint32_t)(missed + 1u);
    d->st.frames += missed + 1u;
    d->last_vblank_ns = d->next_vblank_ns + missed * d->period_ns;
    d->next_vblank_ns = d->last_vblank_ns + d->period_ns;
    /* One event for the frames passed: armed sets go live, then the vblank. */
    uint32_t bits = GEN9_PIPE_VBLANK;
    for (unsigned p = 0; p < VDISP_PLANES; p++) {
        if (d->pending[p]) {
            d->live[p] = d->armed[p];
            d->pending[p] = false;
            d->st.latched++;
            bits |= flip_done((enum vdisp_plane)p);
        }
    }
    d->st.vblank_events++;
    vdisp_irq_event(&d->irq, VDISP_BANK_PIPE_A, bits);
}

bool vdisp_pipe_read(const struct vdisp *d, uint32_t off, uint64_t now, uint32_t *val)
{
    switch (off) {
    case GEN9_PIPEDSL_A:
        *val = vdisp_pipedsl(d, now);
        return true;
    case GEN9_PIPE_FRMCOUNT_A:
        *val = d->frame;
        return true;
    case GEN9_PIPE_FLIPCOUNT_A:
        *val = d->flipcount;
        return true;
    case GEN9_PLANE_SURFLIVE(1):
        *val = d->live[VDISP_PRIMARY].surf;
        return true;
    case GEN9_PLANE_SURFLIVE(2):
        *val = d->live[VDISP_SPRITE].surf;
        return true;
    case GEN9_CURSURFLIVE_A:
        *val = d->live[VDISP_CURSOR].surf;
        return true;
    default:
        return false;
    }
}

/* ---- scan-out ----------------------------------------------------------------------------- */

const char *vdisp_scan_result_name(enum vdisp_scan_result r)
{
    switch (r) {
    case VDISP_SCAN_PICTURE:
        return "picture";
    case VDISP_SCAN_PIPE_OFF:
        return "pipe off";
    case VDISP_SCAN_PLANE_OFF:
        return "plane off";
    case VDISP_SCAN_BAD_FORMAT:
        return "unsupported pixel format";
    case VDISP_SCAN_BAD_TILING:
        return "unsupported tiling";
    case VDISP_SCAN_BAD_STRIDE:
        return "stride too small or too large";
    case VDISP_SCAN_BAD_SIZE:
        return "plane size or position outside the pipe";
    }
    return "?";
}

/* Sanity bounds on what the guest may name (PRM and i915 skl_plane_max_width(); a stride of
 * at most 64 KiB is what PLANE_STRIDE's 10 bits in 64-byte units can say). */
#define MAX_PLANE_W 8192u
#define MAX_PLANE_H 4096u

enum vdisp_scan_result vdisp_scanout(const struct vdisp *d, struct vdisp_scanout *out)
{
    return vdisp_scanout_regs(d, &d->live[VDISP_PRIMARY], out);
}

enum vdisp_scan_result vdisp_scanout_regs(const struct vdisp *d, const struct vdisp_plane_regs *r,
                                          struct vdisp_scanout *out)
{
    *out = (struct vdisp_scanout){ 0 };
    if (!d->pipe_on)
        return VDISP_SCAN_PIPE_OFF;
    if (!(r->ctl & GEN9_PLANE_CTL_ENABLE))
        return VDISP_SCAN_PLANE_OFF;
    uint32_t src = vdisp_store_get(&d->store, GEN9_PIPESRC_A);
    out->pipe_w = (src >> GEN9_PIPESRC_WIDTH_SHIFT & GEN9_PIPESRC_MASK) + 1u;
    out->pipe_h = (src & GEN9_PIPESRC_MASK) + 1u;
    if ((r->ctl & GEN9_PLANE_CTL_FORMAT_MASK) != GEN9_PLANE_CTL_FORMAT_XRGB_8888)
        return VDISP_SCAN_BAD_FORMAT; /* XRGB/XBGR/ARGB/ABGR 8888 only */
    uint32_t tiling = r->ctl & GEN9_PLANE_CTL_TILED_MASK;
    if (tiling && tiling != GEN9_PLANE_CTL_TILED_X)
        return VDISP_SCAN_BAD_TILING;
    out->xtiled = tiling == GEN9_PLANE_CTL_TILED_X;
    out->bgr = (r->ctl & GEN9_PLANE_CTL_ORDER_RGBX) != 0;
    out->rotation = r->ctl & GEN9_PLANE_CTL_ROTATE_MASK;
    out->stride = (r->stride & GEN9_PLANE_STRIDE_MASK) *
                  (out->xtiled ? GEN9_PLANE_STRIDE_UNIT_X : GEN9_PLANE_STRIDE_UNIT);
    out->w = (r->size & GEN9_PLANE_SIZE_WIDTH_MASK) + 1u;
    out->h = (r->size >> GEN9_PLANE_SIZE_HEIGHT_SHIFT & GEN9_PLANE_SIZE_HEIGHT_MASK) + 1u;
    out->x = r->pos & GEN9_PLANE_XY_MASK;
    out->y = r->pos >> 16 & GEN9_PLANE_XY_MASK;
    out->src_x = r->offset & GEN9_PLANE_XY_MASK;
    out->src_y = r->offset >> 16 & GEN9_PLANE_XY_MASK;
    out->surf = r->surf & GEN9_PLANE_SURF_ADDR_MASK;
    if (out->w > MAX_PLANE_W || out->h > MAX_PLANE_H || out->x + out->w > out->pipe_w ||
        out->y + out->h > out->pipe_h)
        return VDISP_SCAN_BAD_SIZE;
    if (!out->stride || (uint64_t)(out->src_x + out->w) * 4u > out->stride)
        return VDISP_SCAN_BAD_STRIDE;
    /* What the plane reads, in 64-bit: every row from src_y, whole tile rows when X-tiled. */
    uint64_t rows = (uint64_t)out->src_y + out->h;
    if (out->xtiled)
        rows = (rows + GEN9_XTILE_ROWS - 1) / GEN9_XTILE_ROWS * GEN9_XTILE_ROWS;
    out->first = out->surf + (out->xtiled ? (uint64_t)out->src_y / GEN9_XTILE_ROWS * GEN9_XTILE_ROWS
                                          : (uint64_t)out->src_y) *
                                 out->stride;
    out->end = out->surf + rows * out->stride;
    return VDISP_SCAN_PICTURE;
}

unsigned vdisp_overlays(const struct vdisp *d)
{
    unsigned m = 0;
    if (d->pipe_on && (d->live[VDISP_SPRITE].ctl & GEN9_PLANE_CTL_ENABLE))
        m |= 1u << VDISP_SPRITE;
    if (d->pipe_on && (d->live[VDISP_CURSOR].ctl & GEN9_CURSOR_MODE_MASK))
        m |= 1u << VDISP_CURSOR;
    return m;
}
