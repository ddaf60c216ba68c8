/*
 * The hardware backend (see igpu_hw.h for the i915 sequences it follows).
 */
#include <string.h>

#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/hw/igpu_hw.h"

/* ---- forcewake ----------------------------------------------------------------------------- */

/* Gen9 forcewake ranges (i915 intel_uncore.c __gen9_fw_ranges): inclusive start, end and the
 * domains a register in the range needs. Offsets not listed (below 0x40000) need none. */
struct fw_range {
    uint32_t start, end;
    uint8_t domains;
};

#define R IGPU_FW_RENDER
#define G IGPU_FW_GT
#define M IGPU_FW_MEDIA
static const struct fw_range gen9_fw_ranges[] = {
    { 0x00000, 0x00aff, G },     { 0x02000, 0x026ff, R },     { 0x02700, 0x02fff, G },
    { 0x03000, 0x03fff, R },     { 0x04000, 0x051ff, G },     { 0x05200, 0x07fff, R },
    { 0x08000, 0x0812f, G },     { 0x08130, 0x0813f, M },     { 0x08140, 0x0815f, R },
    { 0x08160, 0x082ff, G },     { 0x08300, 0x084ff, R },     { 0x08500, 0x087ff, G },
    { 0x08800, 0x089ff, M },     { 0x08a00, 0x08bff, G },     { 0x08c00, 0x08cff, R },
    { 0x08d00, 0x093ff, G },     { 0x09400, 0x097ff, R | M }, { 0x09800, 0x0afff, G },
    { 0x0b000, 0x0b47f, R },     { 0x0b480, 0x0cfff, G },     { 0x0d000, 0x0d7ff, M },
    { 0x0d800, 0x0dfff, G },     { 0x0e000, 0x0e8ff, R },     { 0x0e900, 0x11fff, G },
    { 0x12000, 0x13fff, M },     { 0x14000, 0x19fff, G },     { 0x1a000, 0x1e9ff, M },
    { 0x1ea00, 0x243ff, G },     { 0x24400, 0x247ff, R },     { 0x24800, 0x2ffff, G },
    { 0x30000, 0x3ffff, M },
};
#undef R
#undef G
#undef M

unsigned igpu_hw_fw_domains(uint32_t reg)
{
    size_t lo = 0, hi = sizeof(gen9_fw_ranges) / sizeof(gen9_fw_ranges[0]);
    if (reg >= GEN9_FORCEWAKE_LIMIT)
        return 0;
    while (lo < hi) {                       /* the table is sorted: binary search */
        size_t mid = (lo + hi) / 2;
        if (reg < gen9_fw_ranges[mid].start)
            hi = mid;
        else if (reg > gen9_fw_ranges[mid].end)
            lo = mid + 1;
        else
            return gen9_fw_ranges[mid].domains;
    }
    return 0;
}

static const uint32_t fw_req[IGPU_FW_NUM] = { GEN9_FORCEWAKE_RENDER, GEN9_FORCEWAKE_GT,
                                              GEN9_FORCEWAKE_MEDIA };
static const uint32_t fw_ack[IGPU_FW_NUM] = { GEN9_FORCEWAKE_ACK_RENDER, GEN9_FORCEWAKE_ACK_GT,
                                              GEN9_FORCEWAKE_ACK_MEDIA };

static uint32_t rd(struct igpu_hw *hw, uint32_t off)
{
    return hw->mmio.read32(hw->mmio.ctx, off);
}

static void wr(struct igpu_hw *hw, uint32_t off, uint32_t v)
{
    hw->mmio.write32(hw->mmio.ctx, off, v);
}

/* Poll reg until (reg & mask) == want. */
static int poll(struct igpu_hw *hw, uint32_t reg, uint32_t mask, uint32_t want)
{
    for (unsigned i = 0; i <= hw->poll_limit; i++) {
        if ((rd(hw, reg) & mask) == want)
            return IGPU_OK;
        if (hw->mmio.delay_us)
            hw->mmio.delay_us(hw->mmio.ctx, 1);
    }
    return IGPU_ETIMEDOUT;
}

int igpu_hw_forcewake_get(struct igpu_hw *hw, unsigned domains)
{
    unsigned wake = 0;
    int rc = IGPU_OK;

    for (unsigned d = 0; d < IGPU_FW_NUM; d++)
        if ((domains & (1u << d)) && hw->fw_count[d]++ == 0)
            wake |= 1u << d;
    /* All requests first, then all acks (i915 fw_domains_get_normal()). */
    for (unsigned d = 0; d < IGPU_FW_NUM && rc == IGPU_OK; d++) {
        if (!(wake & (1u << d)))
            continue;
        rc = poll(hw, fw_ack[d], GEN9_FORCEWAKE_KERNEL, 0);
        if (rc == IGPU_OK)
            wr(hw, fw_req[d], GEN9_MASKED_BIT_ENABLE(GEN9_FORCEWAKE_KERNEL));
    }
    for (unsigned d = 0; d < IGPU_FW_NUM && rc == IGPU_OK; d++)
        if (wake & (1u << d))
            rc = poll(hw, fw_ack[d], GEN9_FORCEWAKE_KERNEL, GEN9_FORCEWAKE_KERNEL);
    if (rc != IGPU_OK)
        igpu_hw_forcewake_put(hw, domains);  /* undo the counts (and any request) */
    return rc;
}

void igpu_hw_forcewake_put(struct igpu_hw *hw, unsigned domains)
{
    for (unsigned d = 0; d < IGPU_FW_NUM; d++)
        if ((domains & (1u << d)) && hw->fw_count[d] && --hw->fw_count[d] == 0)
            wr(hw, fw_req[d], GEN9_MASKED_BIT_DISABLE(GEN9_FORCEWAKE_KERNEL));
}

static unsigned engine_fw(enum igpu_engine e)
{
    return igpu_hw_fw_domains(igpu_engine_base(e));
}

/* ---- operations ------------------------------------------------------------------------- */

static int op_reg_read(void *be, uint32_t reg, uint32_t *val)
{
    struct igpu_hw *hw = be;
    unsigned fw = igpu_hw_fw_domains(reg);
    int rc;
    if ((reg & 3u) || !val)
        return IGPU_EINVAL;
    if (reg >= GEN9_MMIO_SIZE)
        return IGPU_ERANGE;
    if ((rc = igpu_hw_forcewake_get(hw, fw)))
        return rc;
    *val = rd(hw, reg);
    igpu_hw_forcewake_put(hw, fw);
    return IGPU_OK;
}

static int op_reg_write(void *be, uint32_t reg, uint32_t val)
{
    struct igpu_hw *hw = be;
    unsigned fw = igpu_hw_fw_domains(reg);
    int rc;
    if (reg & 3u)
        return IGPU_EINVAL;
    if (reg >= GEN9_MMIO_SIZE)
        return IGPU_ERANGE;
    if ((rc = igpu_hw_forcewake_get(hw, fw)))
        return rc;
    wr(hw, reg, val);
    igpu_hw_forcewake_put(hw, fw);
    return IGPU_OK;
}

static int op_ggtt_write(void *be, uint32_t index, uint64_t pte)
{
    struct igpu_hw *hw = be;
    uint32_t off = GEN9_GGTT_BAR0_OFFSET + index * GEN9_GGTT_PTE_SIZE;
    if (index >= hw->igpu.info.ggtt_entries)
        return IGPU_ERANGE;
    if (hw->mmio.write64) {
        hw->mmio.write64(hw->mmio.ctx, off, pte);
    } else {
        wr(hw, off, (uint32_t)pte);
        wr(hw, off + 4u, (uint32_t)(pte >> 32));
    }
    return IGPU_OK;
}

static int op_ggtt_read(void *be, uint32_t index, uint64_t *pte)
{
    struct igpu_hw *hw = be;
    if (index >= hw->igpu.info.ggtt_entries || !pte)
        return IGPU_ERANGE;
    *pte = hw->mmio.read64(hw->mmio.ctx, GEN9_GGTT_BAR0_OFFSET + index * GEN9_GGTT_PTE_SIZE);
    return IGPU_OK;
}

static int op_ggtt_flush(void *be)
{
    /* As an uncached write this also drains the write-combining buffer of PTE writes. */
    wr(be, GEN9_GFX_FLSH_CNTL, GEN9_GFX_FLSH_CNTL_EN);
    return IGPU_OK;
}

static int op_fence_write(void *be, uint32_t index, uint64_t value)
{
    struct igpu_hw *hw = be;
    if (index >= GEN9_FENCE_COUNT)
        return IGPU_ERANGE;
    /* Invalidate first, so no access sees the new high half with the old low half. */
    wr(hw, GEN9_FENCE_REG_LO(index), 0);
    (void)rd(hw, GEN9_FENCE_REG_LO(index));
    wr(hw, GEN9_FENCE_REG_HI(index), (uint32_t)(value >> 32));
    wr(hw, GEN9_FENCE_REG_LO(index), (uint32_t)value);
    (void)rd(hw, GEN9_FENCE_REG_LO(index));
    return IGPU_OK;
}

static uint32_t engine_irq_bits(enum igpu_engine e)
{
    uint32_t bits = GEN9_GT_USER_INTERRUPT | GEN9_GT_CONTEXT_SWITCH | GEN9_GT_CS_MASTER_ERROR;
    return bits << (e == IGPU_RCS ? GEN9_GT_RCS_IRQ_SHIFT : GEN9_GT_BCS_IRQ_SHIFT);
}

static int op_engine_init(void *be, enum igpu_engine e, uint32_t hws_gaddr)
{
    struct igpu_hw *hw = be;
    uint32_t b = igpu_engine_base(e), irq;
    unsigned fw = engine_fw(e);
    int rc;

    if (!b || (hws_gaddr & GEN9_GTT_PAGE_MASK))
        return IGPU_EINVAL;
    if ((rc = igpu_hw_forcewake_get(hw, fw)))
        return rc;
    wr(hw, GEN9_RING_HWSTAM(b), 0xFFFFFFFFu);
    wr(hw, GEN9_RING_MODE(b), GEN9_MASKED_BIT_ENABLE(GEN9_GFX_RUN_LIST_ENABLE));
    wr(hw, GEN9_RING_MI_MODE(b), GEN9_MASKED_BIT_DISABLE(GEN9_MI_MODE_STOP_RING));
    wr(hw, GEN9_RING_HWS_PGA(b), hws_gaddr);
    (void)rd(hw, GEN9_RING_HWS_PGA(b));
    /* After a reset the engine writes CSB entry 0 first: start reading just before it. */
    hw->csb_head[e] = GEN9_CSB_ENTRIES - 1u;
    wr(hw, GEN9_RING_CSB_PTR(b),
       GEN9_MASKED_FIELD(GEN9_CSB_PTR_MASK << GEN9_CSB_READ_PTR_SHIFT,
                         hw->csb_head[e] << GEN9_CSB_READ_PTR_SHIFT));
    igpu_hw_forcewake_put(hw, fw);
    /* Unmask and enable the engine's interrupts in GT bank 0 (i915
     * gen8_gt_irq_postinstall: IMR = ~enabled, IER = enabled), then the master switch. */
    irq = engine_irq_bits(e);
    wr(hw, GEN9_GT_IMR(0), rd(hw, GEN9_GT_IMR(0)) & ~irq);
    wr(hw, GEN9_GT_IER(0), rd(hw, GEN9_GT_IER(0)) | irq);
    wr(hw, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL);
    return IGPU_OK;
}

static int op_elsp_submit(void *be, enum igpu_engine e, uint64_t d0, uint64_t d1)
{
    struct igpu_hw *hw = be;
    uint32_t b = igpu_engine_base(e);
    unsigned fw = engine_fw(e);
    int rc;

    if (!b || !(d0 & GEN9_CTX_VALID))
        return IGPU_EINVAL;
    if ((rc = igpu_hw_forcewake_get(hw, fw)))
        return rc;
    wr(hw, GEN9_RING_ELSP(b), (uint32_t)(d1 >> 32));
    wr(hw, GEN9_RING_ELSP(b), (uint32_t)d1);
    wr(hw, GEN9_RING_ELSP(b), (uint32_t)(d0 >> 32));
    wr(hw, GEN9_RING_ELSP(b), (uint32_t)d0);      /* this write starts the load */
    igpu_hw_forcewake_put(hw, fw);
    return IGPU_OK;
}

static int op_csb_read(void *be, enum igpu_engine e, struct igpu_csb_event *ev, unsigned max)
{
    struct igpu_hw *hw = be;
    uint32_t b = igpu_engine_base(e), wp, head;
    unsigned fw = engine_fw(e), n = 0;
    int rc;

    if (!b || (max && !ev))
        return IGPU_EINVAL;
    if ((rc = igpu_hw_forcewake_get(hw, fw)))
        return rc;
    wp = (rd(hw, GEN9_RING_CSB_PTR(b)) >> GEN9_CSB_WRITE_PTR_SHIFT) & GEN9_CSB_PTR_MASK;
    head = hw->csb_head[e];
    if (wp < GEN9_CSB_ENTRIES) {             /* 7 = nothing written since reset */
        while (head != wp && n < max) {
            head = (head + 1u) % GEN9_CSB_ENTRIES;
            ev[n].status = rd(hw, GEN9_RING_CSB_LO(b, head));
            ev[n].ctx_id = rd(hw, GEN9_RING_CSB_HI(b, head));
            n++;
        }
        if (n) {
            hw->csb_head[e] = head;
            wr(hw, GEN9_RING_CSB_PTR(b),
               GEN9_MASKED_FIELD(GEN9_CSB_PTR_MASK << GEN9_CSB_READ_PTR_SHIFT,
                                 head << GEN9_CSB_READ_PTR_SHIFT));
        }
    }
    igpu_hw_forcewake_put(hw, fw);
    return (int)n;
}

static int op_irq_ack(void *be, struct igpu_irq_status *st)
{
    struct igpu_hw *hw = be;
    uint32_t iir;
    if (!st)
        return IGPU_EINVAL;
    wr(hw, GEN9_MASTER_IRQ, 0);
    iir = rd(hw, GEN9_GT_IIR(0));
    if (iir)
        wr(hw, GEN9_GT_IIR(0), iir);
    wr(hw, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL);
    st->engine[IGPU_RCS] = (iir >> GEN9_GT_RCS_IRQ_SHIFT) & 0xFFFFu;
    st->engine[IGPU_BCS] = (iir >> GEN9_GT_BCS_IRQ_SHIFT) & 0xFFFFu;
    return IGPU_OK;
}

static int op_engine_reset(void *be, enum igpu_engine e)
{
    struct igpu_hw *hw = be;
    uint32_t b = igpu_engine_base(e);
    uint32_t dom = e == IGPU_RCS ? GEN9_GRDOM_RENDER : GEN9_GRDOM_BLT;
    int rc;

    if (!b)
        return IGPU_EINVAL;
    /* i915 holds every domain across a reset. */
    if ((rc = igpu_hw_forcewake_get(hw, IGPU_FW_ALL)))
        return rc;
    wr(hw, GEN9_RING_RESET_CTL(b), GEN9_MASKED_BIT_ENABLE(GEN9_RESET_CTL_REQUEST_RESET));
    rc = poll(hw, GEN9_RING_RESET_CTL(b), GEN9_RESET_CTL_READY_TO_RESET,
              GEN9_RESET_CTL_READY_TO_RESET);
    if (rc == IGPU_OK) {
        wr(hw, GEN9_GDRST, dom);
        rc = poll(hw, GEN9_GDRST, dom, 0);
    }
    wr(hw, GEN9_RING_RESET_CTL(b), GEN9_MASKED_BIT_DISABLE(GEN9_RESET_CTL_REQUEST_RESET));
    igpu_hw_forcewake_put(hw, IGPU_FW_ALL);
    hw->csb_head[e] = GEN9_CSB_ENTRIES - 1u;   /* engine_init must follow */
    return rc;
}

static int op_timestamp(void *be, enum igpu_engine e, uint64_t *ticks)
{
    struct igpu_hw *hw = be;
    uint32_t b = igpu_engine_base(e), hi, lo, prev;
    unsigned fw = engine_fw(e), tries = 3;
    int rc;

    if (!b || !ticks)
        return IGPU_EINVAL;
    if ((rc = igpu_hw_forcewake_get(hw, fw)))
        return rc;
    /* Upper, lower, upper again until the upper half is stable (i915
     * intel_uncore_read64_2x32). */
    hi = rd(hw, GEN9_RING_TIMESTAMP_UDW(b));
    do {
        prev = hi;
        lo = rd(hw, GEN9_RING_TIMESTAMP(b));
        hi = rd(hw, GEN9_RING_TIMESTAMP_UDW(b));
    } while (hi != prev && --tries);
    igpu_hw_forcewake_put(hw, fw);
    *ticks = ((uint64_t)hi << 32) | lo;
    return IGPU_OK;
}

static const struct igpu_ops hw_ops = {
    .name = "hw",
    .reg_read = op_reg_read,
    .reg_write = op_reg_write,
    .ggtt_write = op_ggtt_write,
    .ggtt_read = op_ggtt_read,
    .ggtt_flush = op_ggtt_flush,
    .fence_write = op_fence_write,
    .engine_init = op_engine_init,
    .elsp_submit = op_elsp_submit,
    .csb_read = op_csb_read,
    .irq_ack = op_irq_ack,
    .engine_reset = op_engine_reset,
    .timestamp = op_timestamp,
};

int igpu_hw_init(struct igpu_hw *hw, const struct igpu_mmio *mmio, const struct igpu_info *info)
{
    if (!hw || !mmio || !info || !mmio->read32 || !mmio->write32 || !mmio->read64)
        return IGPU_EINVAL;
    if (info->bar0_size < GEN9_GTTMMADR_SIZE || info->ggtt_entries == 0 ||
        (uint64_t)info->ggtt_entries * GEN9_GGTT_PTE_SIZE > GEN9_GTTMMADR_SIZE - GEN9_GGTT_BAR0_OFFSET)
        return IGPU_EINVAL;
    memset(hw, 0, sizeof(*hw));
    hw->mmio = *mmio;
    hw->igpu.ops = &hw_ops;
    hw->igpu.be = hw;
    hw->igpu.info = *info;
    if (hw->igpu.info.timestamp_hz == 0)
        hw->igpu.info.timestamp_hz = GEN9_CS_TIMESTAMP_HZ;
    hw->poll_limit = IGPU_HW_POLL_DEFAULT;
    for (unsigned e = 0; e < IGPU_NUM_ENGINES; e++)
        hw->csb_head[e] = GEN9_CSB_ENTRIES - 1u;
    /* Drop any request left by firmware or a previous owner (i915 fw_domain_reset writes
     * _MASKED_BIT_DISABLE(0xffff)). */
    for (unsigned d = 0; d < IGPU_FW_NUM; d++)
        wr(hw, fw_req[d], GEN9_MASKED_BIT_DISABLE(0xFFFFu));
    return IGPU_OK;
}
