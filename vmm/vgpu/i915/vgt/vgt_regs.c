/*
 * The Skylake GT2 register file's behaviour (vgt_regs.h says what each special register does
 * and why; the rows are in vgt_regs_table.c).
 */
#include <string.h>

#include "vmm/vgpu/i915/vgt/vgt_regs.h"

static int row_of(uint32_t off)
{
    for (unsigned i = 0; i < vgt_reg_table_count; i++)
        if (vgt_reg_table[i].off == off)
            return (int)i;
    return -1;
}

/* Index into the range storage of off, or -1. */
static int range_dw(uint32_t off)
{
    unsigned base = 0;
    for (unsigned i = 0; i < vgt_reg_ranges_count; i++) {
        const struct vgt_reg_range *g = &vgt_reg_ranges[i];
        if (off >= g->off && off < g->off + 4u * g->dwords && !(off & 3u))
            return (int)(base + (off - g->off) / 4u);
        base += g->dwords;
    }
    return -1;
}

const struct vgt_reg_desc *vgt_regs_desc(uint32_t off)
{
    int i = row_of(off);
    return i < 0 ? NULL : &vgt_reg_table[i];
}

bool vgt_regs_owns(uint32_t off)
{
    return row_of(off) >= 0 || range_dw(off) >= 0;
}

/* The engine whose register at offset `reg` from its base is off, or -1. */
static int engine_reg(uint32_t off, uint32_t reg)
{
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++)
        if (off == igpu_engine_base((enum igpu_engine)e) + reg)
            return (int)e;
    return -1;
}

bool vgt_regs_is_masked(uint32_t off)
{
    const struct vgt_reg_desc *d = vgt_regs_desc(off);
    return d && (d->kind == VGT_REG_MASKED || engine_reg(off, GEN9_RING_MI_MODE(0)) >= 0 ||
                 engine_reg(off, GEN9_RING_RESET_CTL(0)) >= 0);
}

bool vgt_regs_init(struct vgt_regs *r, uint32_t timestamp_hz)
{
    uint32_t ctc = 0, ovr = 0;
    bool ok = gen9_cs_timestamp_encode(timestamp_hz, &ctc, &ovr);
    unsigned dw = 0;

    memset(r, 0, sizeof *r);
    for (unsigned i = 0; i < vgt_reg_table_count; i++)
        r->val[i] = vgt_reg_table[i].init;
    for (unsigned i = 0; i < vgt_reg_ranges_count; i++)
        dw += vgt_reg_ranges[i].dwords;
    if (vgt_reg_table_count > VGT_REGS_MAX || dw > VGT_REGS_RANGE_MAX_DW)
        return false;
    r->val[row_of(GEN9_CTC_MODE)] = ctc;
    r->val[row_of(GEN9_TIMESTAMP_OVERRIDE)] = ovr;
    return ok;
}

void vgt_regs_set_busy(struct vgt_regs *r, enum igpu_engine e, bool busy)
{
    if ((unsigned)e < IGPU_NUM_GT_ENGINES)
        r->busy[e] = busy;
}

bool vgt_regs_set_fuse(struct vgt_regs *r, uint32_t off, uint32_t val)
{
    int i = row_of(off);
    if (i < 0 || vgt_reg_table[i].kind != VGT_REG_RO)
        return false;
    r->val[i] = val;
    return true;
}

bool vgt_regs_stopped(const struct vgt_regs *r, enum igpu_engine e)
{
    int i = row_of(GEN9_RING_MI_MODE(igpu_engine_base(e)));
    return i >= 0 && (r->val[i] & GEN9_MI_MODE_STOP_RING);
}

void vgt_regs_engine_error(struct vgt_regs *r, enum igpu_engine e, uint32_t eir)
{
    int i = row_of(GEN9_RING_EIR(igpu_engine_base(e)));
    if (i >= 0)
        r->val[i] |= eir & 0xFFFFu; /* bits 31:16 are the enable mask (i915) */
}

uint32_t vgt_regs_read(struct vgt_regs *r, uint32_t off)
{
    int i = row_of(off), e;

    r->st.reads++;
    if (i < 0) {
        int d = range_dw(off);
        return d < 0 ? 0 : r->range[d];
    }
    if (off == GEN9_GDRST)
        return 0; /* every reset completes at once */
    if ((e = engine_reg(off, GEN9_RING_MI_MODE(0))) >= 0)
        return (r->val[i] & ~GEN9_MI_MODE_IDLE) | (r->busy[e] ? 0 : GEN9_MI_MODE_IDLE);
    return r->val[i];
}

/* GEN6_GDRST: the virtual engines a write resets (GVT-g gdrst_mmio_write(); i915
 * engine_reset_domains[]).  FULL resets all; VCS1 and GuC do not exist here. */
static uint32_t gdrst_engines(uint32_t val)
{
    uint32_t m = 0;
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++)
        if ((val & GEN9_GRDOM_FULL) || (val & igpu_engine_reset_domain((enum igpu_engine)e)))
            m |= 1u << e;
    return m;
}

/* GEN6_PCODE_MAILBOX: answer at once, as GVT-g mailbox_write() does for Skylake. */
static void pcode(struct vgt_regs *r, int i, uint32_t val)
{
    uint32_t *data = &r->val[row_of(GEN9_PCODE_DATA)];

    switch (val & GEN9_PCODE_COMMAND_MASK) {
    case GEN9_PCODE_READ_MEM_LATENCY:
        /* Skylake's latencies as GVT-g reports them: levels 0-3 first, then 4-7. */
        *data = *data ? 0x61514b3du : 0x1e1a1100u;
        break;
    case GEN9_PCODE_CDCLK_CONTROL:
        *data = GEN9_CDCLK_READY_FOR_CHANGE;
        break;
    case GEN9_PCODE_READ_RC6VIDS:
        *data |= 1u;
        break;
    case GEN9_PCODE_SAGV_CONTROL:
        /* No SAGV here: "illegal command", which skl_sagv_disable() takes as "No SAGV found on
         * system, ignoring" (a success would be read as the SAGV still enabled, 51 ms of
         * retries and an error). */
        r->st.pcode++;
        r->val[i] = (val & ~(GEN9_PCODE_READY | GEN9_PCODE_ERROR_MASK)) | GEN9_PCODE_ILLEGAL_CMD;
        return;
    default:
        break; /* done, DATA unchanged */
    }
    r->st.pcode++;
    r->val[i] = val & ~(GEN9_PCODE_READY | GEN9_PCODE_ERROR_MASK);
}

void vgt_regs_write(struct vgt_regs *r, uint32_t off, uint32_t val, struct vgt_regs_action *act)
{
    int i = row_of(off);

    r->st.writes++;
    if (act)
        act->reset_engines = 0;
    if (i < 0) {
        int d = range_dw(off);
        if (d >= 0)
            r->range[d] = val;
        return;
    }
    switch ((enum vgt_reg_kind)vgt_reg_table[i].kind) {
    case VGT_REG_PLAIN:
        r->val[i] = val;
        return;
    case VGT_REG_MASKED:
        r->val[i] = gen9_masked_apply(r->val[i], val);
        return;
    case VGT_REG_RO:
        r->st.ro_ignored++;
        return;
    case VGT_REG_IIR:
        r->val[i] &= ~val;
        return;
    case VGT_REG_SPECIAL:
        break;
    }
    if (engine_reg(off, GEN9_RING_MI_MODE(0)) >= 0) {
        /* MODE_IDLE is status, not a control bit. */
        r->val[i] = gen9_masked_apply(r->val[i], val & ~(GEN9_MI_MODE_IDLE << 16)) &
                    ~GEN9_MI_MODE_IDLE;
    } else if (engine_reg(off, GEN9_RING_RESET_CTL(0)) >= 0) {
        uint32_t req = GEN9_RESET_CTL_REQUEST_RESET;
        r->val[i] = gen9_masked_apply(r->val[i], val & ~(GEN9_RESET_CTL_READY_TO_RESET << 16));
        if ((val & req << 16) && (val & req))
            r->val[i] |= GEN9_RESET_CTL_READY_TO_RESET;
        else if (val & req << 16)
            r->val[i] &= ~GEN9_RESET_CTL_READY_TO_RESET;
    } else if (engine_reg(off, GEN9_RING_EIR(0)) >= 0) {
        r->val[i] &= ~val;
    } else if (off == GEN9_GDRST) {
        uint32_t m = gdrst_engines(val);
        for (unsigned k = 0; k < IGPU_NUM_GT_ENGINES; k++)
            if (m & (1u << k))
                r->st.engine_resets++;
        if (act)
            act->reset_engines = m;
    } else if (off == GEN9_PCODE_MAILBOX) {
        pcode(r, i, val);
    } else if (off >= GEN9_HSW_PWR_WELL_CTL1 && off <= GEN9_HSW_PWR_WELL_CTL4) {
        /* A requested well is on at once (GVT-g skl_power_well_ctl_write()). */
        uint32_t req = val & GEN9_PWR_WELL_SKL_REQ_MASK;
        r->val[i] = req | req >> 1;
    } else if (off == GEN9_FPGA_DBG) {
        r->val[i] = val & ~GEN9_FPGA_DBG_RM_NOCLAIM; /* never an unclaimed access */
    }
}
