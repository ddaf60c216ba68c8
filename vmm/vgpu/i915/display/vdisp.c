/*
 * The virtual DP monitor and the display registers with behaviour (vdisp.h says what and why;
 * the pipe's clock and the planes are in vdisp_pipe.c).
 */
#include "vmm/vgpu/i915/display/vdisp.h"

#include "drivers/igpu/gen9_display.h"

#include <string.h>

#define PORTS  5u          /* DDI A..E */
#define AUX_CH GEN9_PORT_D /* the VBT gives port D AUX channel D */

bool vdisp_monitor_ok(const struct vdisp_monitor *m, const char **why)
{
    struct edid_mode mode;
    if (!m->connected) {
        *why = "no monitor";
        return false;
    }
    if (!edid_mode_make(m->width, m->height, m->hz, &mode) ||
        !edid_mode_make(EDID_ALT_WIDTH, EDID_ALT_HEIGHT, m->hz, &mode)) {
        *why = "no mode i915 accepts at that size and refresh (64..4095 pixels a side, 10..60 Hz, "
               "a pixel clock of at most 655 MHz)";
        return false;
    }
    return true;
}

void vdisp_init(struct vdisp *d, const struct vdisp_monitor *m)
{
    memset(d, 0, sizeof *d);
    d->boot = *m;
    vdisp_reset(d);
}

void vdisp_free(struct vdisp *d)
{
    vdisp_store_clear(&d->store);
}

/* The monitor's EDID and DPCD; an unplugged monitor keeps the last ones (nobody reads them). */
static void attach(struct vdisp *d, const struct vdisp_monitor *m)
{
    uint8_t edid[EDID_BYTES];
    d->mon = *m;
    if (m->connected && edid_build(m->width, m->height, m->hz, edid))
        vdisp_aux_init(&d->aux, edid);
    if (m->connected)
        d->irq.pch_isr |= GEN9_SDE_PORTD_HOTPLUG_SPT;
    else
        d->irq.pch_isr &= ~GEN9_SDE_PORTD_HOTPLUG_SPT;
}

void vdisp_reset(struct vdisp *d)
{
    struct vdisp_stats st = d->st;
    struct vdisp_monitor boot = d->boot;
    vdisp_store_clear(&d->store);
    struct vdisp_store store = d->store;
    struct vdisp_aux_stats aux_st = d->aux.st;
    struct vdisp_irq_stats irq_st = d->irq.st;
    memset(d, 0, sizeof *d);
    d->boot = boot;
    d->st = st;
    d->store = store;
    d->aux.st = aux_st;
    d->irq.st = irq_st;
    vdisp_irq_reset(&d->irq);
    /* Straps and firmware's leftovers (vdisp.h "all off"): port D wired, VGA plane off, every
     * DDI buffer idle. */
    vdisp_store_set(&d->store, GEN9_SFUSE_STRAP, GEN9_SFUSE_STRAP_DDID_DETECTED);
    vdisp_store_set(&d->store, GEN9_VGACNTRL, GEN9_VGA_DISP_DISABLE);
    for (unsigned p = 0; p < PORTS; p++)
        vdisp_store_set(&d->store, GEN9_DDI_BUF_CTL(p), GEN9_DDI_BUF_IS_IDLE);
    attach(d, &boot);
}

bool vdisp_owns(uint32_t off)
{
    return vdisp_store_owns(off);
}

/* ---- the AUX channel of port D ------------------------------------------------------------ */

static void aux_send(struct vdisp *d, uint32_t ctl)
{
    uint8_t req[VDISP_AUX_MSG_MAX], reply[VDISP_AUX_MSG_MAX];
    unsigned n = (ctl & GEN9_DP_AUX_CH_CTL_SIZE_MASK) >> GEN9_DP_AUX_CH_CTL_SIZE_SHIFT, len;
    uint32_t status = (ctl & ~(GEN9_DP_AUX_CH_CTL_SEND_BUSY | GEN9_DP_AUX_CH_CTL_STICKY |
                               GEN9_DP_AUX_CH_CTL_SIZE_MASK)) |
                      GEN9_DP_AUX_CH_CTL_DONE;
    d->st.aux++;
    if (!d->mon.connected) {
        /* No sink: the request times out, as on hardware ("normal", i915 says). */
        vdisp_store_set(&d->store, GEN9_DP_AUX_CH_CTL(AUX_CH),
                        status | GEN9_DP_AUX_CH_CTL_TIME_OUT_ERROR);
        return;
    }
    if (n == 0 || n > VDISP_AUX_MSG_MAX) {
        vdisp_store_set(&d->store, GEN9_DP_AUX_CH_CTL(AUX_CH),
                        status | GEN9_DP_AUX_CH_CTL_RECEIVE_ERROR);
        return;
    }
    for (unsigned i = 0; i < n; i++) /* big-endian bytes per dword (intel_dp_aux_pack()) */
        req[i] = (uint8_t)(vdisp_store_get(&d->store, GEN9_DP_AUX_CH_DATA(AUX_CH, i / 4u)) >>
                           (24u - 8u * (i % 4u)));
    len = vdisp_aux_request(&d->aux, req, n, reply);
    for (unsigned r = 0; r < GEN9_DP_AUX_DATA_REGS; r++) {
        uint32_t v = 0;
        for (unsigned i = 0; i < 4u && 4u * r + i < len; i++)
            v |= (uint32_t)reply[4u * r + i] << (24u - 8u * i);
        if (4u * r < len)
            vdisp_store_set(&d->store, GEN9_DP_AUX_CH_DATA(AUX_CH, r), v);
    }
    vdisp_store_set(&d->store, GEN9_DP_AUX_CH_CTL(AUX_CH),
                    status | len << GEN9_DP_AUX_CH_CTL_SIZE_SHIFT);
}

static void aux_ctl_write(struct vdisp *d, uint32_t val)
{
    if (val & GEN9_DP_AUX_CH_CTL_SEND_BUSY) {
        aux_send(d, val); /* completes inside the write */
        return;
    }
    /* Status bits are cleared by writing 1s; the rest is the guest's. */
    uint32_t old = vdisp_store_get(&d->store, GEN9_DP_AUX_CH_CTL(AUX_CH));
    vdisp_store_set(&d->store, GEN9_DP_AUX_CH_CTL(AUX_CH),
                    (val & ~GEN9_DP_AUX_CH_CTL_STICKY) | (old & GEN9_DP_AUX_CH_CTL_STICKY & ~val));
}

/* ---- hotplug ------------------------------------------------------------------------------ */

bool vdisp_plug(struct vdisp *d, const struct vdisp_monitor *m, uint64_t now, const char **why)
{
    if (m->connected && !vdisp_monitor_ok(m, why))
        return false;
    vdisp_pipe_advance(d, now);
    attach(d, m);
    /* A long pulse on port D (GVT-g intel_vgpu_emulate_hotplug()): the status the handler
     * reads and writes back, and the south interrupt. */
    uint32_t hp = vdisp_store_get(&d->store, GEN9_PCH_PORT_HOTPLUG);
    vdisp_store_set(&d->store, GEN9_PCH_PORT_HOTPLUG, hp | GEN9_PORTD_HOTPLUG_LONG_DETECT);
    vdisp_irq_event(&d->irq, VDISP_BANK_PCH, GEN9_SDE_PORTD_HOTPLUG_SPT);
    d->st.hotplugs++;
    return true;
}

/* ---- registers ---------------------------------------------------------------------------- */

static bool is_plane_reg(uint32_t off)
{
    for (unsigned n = 1; n <= 2; n++)
        if (off >= GEN9_PLANE_BASE(n) && off < GEN9_PLANE_BASE(n) + 0x80u)
            return true;
    return off >= GEN9_CURCNTR_A && off <= GEN9_CURPOS_A;
}

static bool read_only(uint32_t off)
{
    return off == GEN9_SFUSE_STRAP || off == GEN9_DPLL_STATUS || off == GEN9_PIPEDSL_A ||
           off == GEN9_PIPE_FRMCOUNT_A || off == GEN9_PIPE_FLIPCOUNT_A ||
           off == GEN9_PLANE_SURFLIVE(1) || off == GEN9_PLANE_SURFLIVE(2) ||
           off == GEN9_CURSURFLIVE_A;
}

uint32_t vdisp_read(struct vdisp *d, uint32_t off, uint64_t now)
{
    uint32_t v;
    d->st.reads++;
    vdisp_pipe_advance(d, now);
    if (vdisp_irq_owns(off))
        return vdisp_irq_read(&d->irq, off);
    if (vdisp_pipe_read(d, off, now, &v))
        return v;
    if (off == GEN9_DPLL_STATUS) {
        /* Each PLL's lock is its enable (GVT-g dpll_status_read()). */
        static const uint32_t ctl[4] = { GEN9_LCPLL1_CTL, GEN9_LCPLL2_CTL, GEN9_WRPLL_CTL1,
                                         GEN9_WRPLL_CTL2 };
        v = 0;
        for (unsigned id = 0; id < 4; id++)
            if (vdisp_store_get(&d->store, ctl[id]) & GEN9_LCPLL_PLL_ENABLE)
                v |= GEN9_DPLL_LOCK(id);
        return v;
    }
    return vdisp_store_get(&d->store, off);
}

/* A register whose status bit follows its control bit (set: on; clear: off). */
static void follow(struct vdisp *d, uint32_t off, uint32_t val, uint32_t ctl, uint32_t status)
{
    vdisp_store_set(&d->store, off, (val & ctl) ? val | status : val & ~status);
}

void vdisp_write(struct vdisp *d, uint32_t off, uint32_t val, uint64_t now)
{
    d->st.writes++;
    vdisp_pipe_advance(d, now);
    if (vdisp_irq_owns(off)) {
        vdisp_irq_write(&d->irq, off, val);
        return;
    }
    if (read_only(off)) {
        d->st.ro_ignored++;
        return;
    }
    for (unsigned p = 0; p < PORTS; p++) {
        if (off == GEN9_DDI_BUF_CTL(p)) { /* GVT-g ddi_buf_ctl_mmio_write() */
            vdisp_store_set(&d->store, off,
                            (val & GEN9_DDI_BUF_CTL_ENABLE) ? val & ~GEN9_DDI_BUF_IS_IDLE
                                                            : val | GEN9_DDI_BUF_IS_IDLE);
            return;
        }
        if (off == GEN9_DP_TP_CTL(p)) { /* GVT-g dp_tp_ctl_mmio_write() */
            vdisp_store_set(&d->store, off, val);
            if ((val & GEN9_DP_TP_CTL_PATTERN_MASK) == GEN9_DP_TP_CTL_PATTERN_IDLE)
                vdisp_store_set(&d->store, GEN9_DP_TP_STATUS(p),
                                vdisp_store_get(&d->store, GEN9_DP_TP_STATUS(p)) |
                                    GEN9_DP_TP_STATUS_IDLE_DONE);
            return;
        }
        if (off == GEN9_DP_TP_STATUS(p)) { /* sticky bits: write 1 to clear */
            vdisp_store_set(&d->store, off,
                            vdisp_store_get(&d->store, off) & ~(val & GEN9_DP_TP_STATUS_STICKY));
            return;
        }
    }
    switch (off) {
    case GEN9_DP_AUX_CH_CTL(AUX_CH):
        aux_ctl_write(d, val);
        return;
    case GEN9_LCPLL1_CTL:
    case GEN9_LCPLL2_CTL: /* GVT-g skl_lcpll_write() */
        follow(d, off, val, GEN9_LCPLL_PLL_ENABLE, GEN9_LCPLL_PLL_LOCK);
        return;
    case GEN9_DBUF_CTL: /* GVT-g gen9_dbuf_ctl_mmio_write() */
        follow(d, off, val, GEN9_DBUF_POWER_REQUEST, GEN9_DBUF_POWER_STATE);
        return;
    case GEN9_PIPECONF_A: /* GVT-g pipeconf_mmio_write() */
        follow(d, off, val, GEN9_PIPECONF_ENABLE, GEN9_PIPECONF_STATE_ENABLE);
        vdisp_pipe_enable(d, (val & GEN9_PIPECONF_ENABLE) != 0, now);
        return;
    case GEN9_EDP_PSR_IIR: /* nothing latches: 1s clear */
        vdisp_store_set(&d->store, off, vdisp_store_get(&d->store, off) & ~val);
        return;
    case GEN9_PCH_PORT_HOTPLUG: /* status: write 1 to clear */
    case GEN9_PCH_PORT_HOTPLUG2: {
        uint32_t sticky = off == GEN9_PCH_PORT_HOTPLUG ? GEN9_PORT_HOTPLUG_STATUS_MASK
                                                       : GEN9_PORTE_HOTPLUG_STATUS_MASK;
        uint32_t old = vdisp_store_get(&d->store, off);
        vdisp_store_set(&d->store, off, (val & ~sticky) | (old & sticky & ~val));
        return;
    }
    default:
        break;
    }
    vdisp_store_set(&d->store, off, val);
    if (is_plane_reg(off))
        vdisp_plane_write(d, off);
}

void vdisp_tick(struct vdisp *d, uint64_t now)
{
    vdisp_pipe_advance(d, now);
}
