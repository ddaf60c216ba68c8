/*
 * The hardware backend (see igpu_hw.h for the i915 sequences it follows).
 */
#include <string.h>

#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/hw/igpu_hw_internal.h"

#define rd igpu_hw_rd
#define wr igpu_hw_wr

/* The engines this backend drives (RCS, BCS); 0 for the video engines, which exist only as an
 * i915 guest's virtual engines. */
static uint32_t hw_engine_base(enum igpu_engine e)
{
    return (unsigned)e < IGPU_NUM_ENGINES ? igpu_engine_base(e) : 0;
}

static unsigned engine_fw(enum igpu_engine e)
{
    return igpu_hw_fw_domains(hw_engine_base(e));
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
    /* i915 gen8_ggtt_invalidate(): one write of GFX_FLSH_CNTL_EN, which as an uncached write
     * also drains the CPU's write-combining buffer of PTE writes ahead of the invalidate. */
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

/* i915 reset_csb_pointers(): "Sometimes [the engine] forgets to reset its pointers on a GPU
 * reset. Bludgeon them with a mmio update to be sure" -- both pointers to the last entry, so
 * the first event after a reset lands in entry 0, written twice with a posting read each. */
static void reset_csb_pointers(struct igpu_hw *hw, enum igpu_engine e)
{
    uint32_t b = hw_engine_base(e), last = GEN9_CSB_ENTRIES - 1u;
    uint32_t v = GEN9_MASKED_FIELD(0xFFFFu, last << GEN9_CSB_READ_PTR_SHIFT |
                                                last << GEN9_CSB_WRITE_PTR_SHIFT);
    hw->csb_head[e] = last;
    wr(hw, GEN9_RING_CSB_PTR(b), v);
    (void)rd(hw, GEN9_RING_CSB_PTR(b));
    wr(hw, GEN9_RING_CSB_PTR(b), v); /* "once more for luck" */
    (void)rd(hw, GEN9_RING_CSB_PTR(b));
}

static int op_engine_init(void *be, enum igpu_engine e, uint32_t hws_gaddr)
{
    struct igpu_hw *hw = be;
    uint32_t b = hw_engine_base(e), irq, esr;
    unsigned fw = engine_fw(e);

    if (!b || (hws_gaddr & GEN9_GTT_PAGE_MASK))
        return IGPU_EINVAL;
    igpu_hw_forcewake_get(hw, fw);
    reset_csb_pointers(hw, e);
    /* i915 enable_execlists(). */
    wr(hw, GEN9_RING_HWSTAM(b), 0xFFFFFFFFu);
    wr(hw, GEN9_RING_MODE(b), GEN9_MASKED_BIT_ENABLE(GEN9_GFX_RUN_LIST_ENABLE));
    wr(hw, GEN9_RING_MI_MODE(b), GEN9_MASKED_BIT_DISABLE(GEN9_MI_MODE_STOP_RING));
    wr(hw, GEN9_RING_HWS_PGA(b), hws_gaddr);
    (void)rd(hw, GEN9_RING_HWS_PGA(b));
    /* i915 enable_error_interrupt(): mask all, clear what is pending, then report only
     * instruction errors (CP_PRIV fires for privilege violations the CS already suppressed). */
    wr(hw, GEN9_RING_EMR(b), 0xFFFFFFFFu);
    wr(hw, GEN9_RING_EIR(b), 0xFFFFFFFFu);
    esr = rd(hw, GEN9_RING_ESR(b));
    if (esr)
        igpu_hw_log(hw, "igpu: %s resumed still in error: %08x", igpu_engine_name(e), esr);
    wr(hw, GEN9_RING_EMR(b), ~GEN9_ERROR_INSTRUCTION);
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
    uint32_t b = hw_engine_base(e);
    unsigned fw = engine_fw(e);
    int rc;

    if (!b || !(d0 & GEN9_CTX_VALID))
        return IGPU_EINVAL;
    if ((rc = igpu_hw_forcewake_get(hw, fw)))
        return rc;
    wr(hw, GEN9_RING_ELSP(b), (uint32_t)(d1 >> 32));
    wr(hw, GEN9_RING_ELSP(b), (uint32_t)d1);
    wr(hw, GEN9_RING_ELSP(b), (uint32_t)(d0 >> 32));
    wr(hw, GEN9_RING_ELSP(b), (uint32_t)d0); /* this write starts the load */
    igpu_hw_forcewake_put(hw, fw);
    return IGPU_OK;
}

static int op_csb_read(void *be, enum igpu_engine e, struct igpu_csb_event *ev, unsigned max)
{
    struct igpu_hw *hw = be;
    uint32_t b = hw_engine_base(e), wp, head;
    unsigned fw = engine_fw(e), n = 0;
    int rc;

    if (!b || (max && !ev))
        return IGPU_EINVAL;
    if ((rc = igpu_hw_forcewake_get(hw, fw)))
        return rc;
    wp = (rd(hw, GEN9_RING_CSB_PTR(b)) >> GEN9_CSB_WRITE_PTR_SHIFT) & GEN9_CSB_PTR_MASK;
    head = hw->csb_head[e];
    if (wp < GEN9_CSB_ENTRIES) { /* 7 = nothing written since reset */
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

/* i915 intel_engine_stop_cs(): ring stopped, wait for MODE_IDLE, posting read.  A timeout is
 * reported and the reset goes ahead ("does not adversely affect functionality"). */
static void stop_cs(struct igpu_hw *hw, enum igpu_engine e)
{
    uint32_t b = hw_engine_base(e);
    wr(hw, GEN9_RING_MI_MODE(b), GEN9_MASKED_BIT_ENABLE(GEN9_MI_MODE_STOP_RING));
    if (igpu_hw_wait(hw, GEN9_RING_MI_MODE(b), GEN9_MI_MODE_IDLE, GEN9_MI_MODE_IDLE,
                     IGPU_HW_STOP_CS_US) != IGPU_OK) {
        hw->stop_cs_timeouts++;
        igpu_hw_log(hw, "igpu: %s: timed out on STOP_RING -> IDLE; resetting anyway",
                    igpu_engine_name(e));
    }
    (void)rd(hw, GEN9_RING_MI_MODE(b)); /* let GPU writes reach memory */
}

/* i915 gen8_engine_reset_prepare(): ask for the reset and wait for READY_TO_RESET, except after
 * a catastrophic error, where the handshake is bypassed (HAS#396813): request CAT_ERROR and
 * wait for the hardware to clear it. */
static int reset_prepare(struct igpu_hw *hw, enum igpu_engine e)
{
    uint32_t reg = GEN9_RING_RESET_CTL(hw_engine_base(e));
    uint32_t ack = rd(hw, reg), request, mask, want;

    if (ack & GEN9_RESET_CTL_CAT_ERROR) {
        request = mask = GEN9_RESET_CTL_CAT_ERROR;
        want = 0;
    } else if (!(ack & GEN9_RESET_CTL_READY_TO_RESET)) {
        request = GEN9_RESET_CTL_REQUEST_RESET;
        mask = want = GEN9_RESET_CTL_READY_TO_RESET;
    } else {
        return IGPU_OK;
    }
    wr(hw, reg, GEN9_MASKED_BIT_ENABLE(request));
    if (igpu_hw_wait(hw, reg, mask, want, IGPU_HW_RESET_CTL_US) == IGPU_OK)
        return IGPU_OK;
    igpu_hw_log(hw, "igpu: %s reset request timed out: {request: %08x, RESET_CTL: %08x}",
                igpu_engine_name(e), request, rd(hw, reg));
    return IGPU_ETIMEDOUT;
}

/* i915 gen6_hw_domain_reset(): write the domain's GDRST bit and wait for it to clear, twice
 * (the second reset serialises with the first while engine state settles), then 50 us. */
static int domain_reset(struct igpu_hw *hw, uint32_t dom)
{
    int rc = IGPU_OK;
    for (unsigned n = 0; n < IGPU_HW_GDRST_WRITES && rc == IGPU_OK; n++) {
        wr(hw, GEN9_GDRST, dom);
        rc = igpu_hw_wait(hw, GEN9_GDRST, dom, 0, IGPU_HW_GDRST_US);
    }
    igpu_hw_delay(hw, IGPU_HW_GDRST_SETTLE_US);
    return rc;
}

/* i915 intel_engine_reset() -> reset_prepare_engine() (all forcewake domains held, the CS
 * stopped: "kbl can suffer from system hang if batchbuffer is progressing when the reset is
 * issued, regardless of READY_TO_RESET ack"), __intel_gt_reset() -> gen8_reset_engines() per
 * attempt: prepare, and skip the reset on the first attempt if not ready, proceed on a retry
 * ("we rather take context corruption instead of failed reset"), reset the domain, cancel the
 * request; attempts are repeated while the reset times out.  i915 makes those retries with a
 * full GPU reset after a failed engine reset; Tessera retries the blitter's domain alone, since
 * resetting the render engine too would throw away work that is not the culprit's.  Finally
 * intel_engine_cancel_stop_cs(). engine_init must follow. */
static int op_engine_reset(void *be, enum igpu_engine e)
{
    struct igpu_hw *hw = be;
    uint32_t b = hw_engine_base(e);
    uint32_t dom = e == IGPU_RCS ? GEN9_GRDOM_RENDER : GEN9_GRDOM_BLT;
    int rc = IGPU_ETIMEDOUT;

    if (!b)
        return IGPU_EINVAL;
    igpu_hw_forcewake_get(hw, IGPU_FW_ALL);
    stop_cs(hw, e);
    for (unsigned attempt = 0; attempt < IGPU_HW_RESET_ATTEMPTS && rc == IGPU_ETIMEDOUT;
         attempt++) {
        if (attempt)
            hw->reset_retries++;
        rc = reset_prepare(hw, e);
        if (rc == IGPU_OK || attempt > 0)
            rc = domain_reset(hw, dom);
        wr(hw, GEN9_RING_RESET_CTL(b), GEN9_MASKED_BIT_DISABLE(GEN9_RESET_CTL_REQUEST_RESET));
    }
    if (rc != IGPU_OK)
        igpu_hw_log(hw, "igpu: %s did not reset after %u attempts", igpu_engine_name(e),
                    IGPU_HW_RESET_ATTEMPTS);
    wr(hw, GEN9_RING_MI_MODE(b), GEN9_MASKED_BIT_DISABLE(GEN9_MI_MODE_STOP_RING));
    igpu_hw_forcewake_put(hw, IGPU_FW_ALL);
    hw->csb_head[e] = GEN9_CSB_ENTRIES - 1u; /* engine_init must follow */
    return rc;
}

static int op_timestamp(void *be, enum igpu_engine e, uint64_t *ticks)
{
    struct igpu_hw *hw = be;
    uint32_t b = hw_engine_base(e), hi, lo, prev;
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

/* i915 intel_gt_init_clock_frequency() -> gen9_read_clock_frequency(): the command
 * streamer's timestamp rate from CTC_MODE (and TIMESTAMP_OVERRIDE for the divide logic). */
static void read_timestamp_hz(struct igpu_hw *hw)
{
    unsigned fw = igpu_hw_fw_domains(GEN9_CTC_MODE);
    uint32_t ctc, ovr = 0;
    igpu_hw_forcewake_get(hw, fw);
    ctc = rd(hw, GEN9_CTC_MODE);
    igpu_hw_forcewake_put(hw, fw);
    if (ctc & GEN9_CTC_SOURCE_DIVIDE_LOGIC)
        ovr = rd(hw, GEN9_TIMESTAMP_OVERRIDE); /* above 0x40000: no forcewake */
    hw->igpu.info.timestamp_hz = gen9_cs_timestamp_hz(ctc, ovr);
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
        (uint64_t)info->ggtt_entries * GEN9_GGTT_PTE_SIZE >
            GEN9_GTTMMADR_SIZE - GEN9_GGTT_BAR0_OFFSET)
        return IGPU_EINVAL;
    memset(hw, 0, sizeof(*hw));
    hw->mmio = *mmio;
    hw->igpu.ops = &hw_ops;
    hw->igpu.be = hw;
    hw->igpu.info = *info;
    hw->poll_limit = IGPU_HW_POLL_DEFAULT;
    for (unsigned e = 0; e < IGPU_NUM_ENGINES; e++)
        hw->csb_head[e] = GEN9_CSB_ENTRIES - 1u;
    igpu_hw_forcewake_reset(hw);
    read_timestamp_hz(hw);
    return IGPU_OK;
}
