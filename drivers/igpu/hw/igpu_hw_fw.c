/*
 * The hardware backend's MMIO primitives and forcewake (i915 intel_uncore.c).
 *
 * Gen9 takes its forcewake domains with fw_domains_get_with_fallback() (intel_uncore.c,
 * uncore_get_fallback for GRAPHICS_VER 9-11): per domain wait for the ack to clear, set
 * FORCEWAKE_KERNEL, then wait for every ack to be set.  When an ack does not come, the wake
 * request may have collided with the hardware's own and the ack been lost; i915 then toggles
 * FORCEWAKE_KERNEL_FALLBACK up to ten times to kick the state machine
 * (fw_domain_wait_ack_with_fallback(), "WaRsForcewakeAddDelayForAck:skl,bxt,kbl,..."), and if
 * the ack still does not come it logs the timeout and carries on: the access is made anyway
 * (fw_domain_wait_ack_clear/_set() only report).  Tessera does the same, logging through
 * mmio.log and counting in hw->fw_ack_timeouts / hw->fw_fallbacks.
 */
#include <stdarg.h>
#include <stdio.h>

#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/hw/igpu_hw_internal.h"

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
    { 0x00000, 0x00aff, G }, { 0x02000, 0x026ff, R },     { 0x02700, 0x02fff, G },
    { 0x03000, 0x03fff, R }, { 0x04000, 0x051ff, G },     { 0x05200, 0x07fff, R },
    { 0x08000, 0x0812f, G }, { 0x08130, 0x0813f, M },     { 0x08140, 0x0815f, R },
    { 0x08160, 0x082ff, G }, { 0x08300, 0x084ff, R },     { 0x08500, 0x087ff, G },
    { 0x08800, 0x089ff, M }, { 0x08a00, 0x08bff, G },     { 0x08c00, 0x08cff, R },
    { 0x08d00, 0x093ff, G }, { 0x09400, 0x097ff, R | M }, { 0x09800, 0x0afff, G },
    { 0x0b000, 0x0b47f, R }, { 0x0b480, 0x0cfff, G },     { 0x0d000, 0x0d7ff, M },
    { 0x0d800, 0x0dfff, G }, { 0x0e000, 0x0e8ff, R },     { 0x0e900, 0x11fff, G },
    { 0x12000, 0x13fff, M }, { 0x14000, 0x19fff, G },     { 0x1a000, 0x1e9ff, M },
    { 0x1ea00, 0x243ff, G }, { 0x24400, 0x247ff, R },     { 0x24800, 0x2ffff, G },
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
    while (lo < hi) { /* the table is sorted: binary search */
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
static const char *const fw_name[IGPU_FW_NUM] = { "render", "gt", "media" };

/* ---- MMIO primitives -------------------------------------------------------------------- */

uint32_t igpu_hw_rd(struct igpu_hw *hw, uint32_t off)
{
    return hw->mmio.read32(hw->mmio.ctx, off);
}

void igpu_hw_wr(struct igpu_hw *hw, uint32_t off, uint32_t v)
{
    hw->mmio.write32(hw->mmio.ctx, off, v);
}

void igpu_hw_delay(struct igpu_hw *hw, unsigned us)
{
    if (hw->mmio.delay_us)
        hw->mmio.delay_us(hw->mmio.ctx, us);
}

int igpu_hw_wait(struct igpu_hw *hw, uint32_t reg, uint32_t mask, uint32_t want, unsigned us)
{
    unsigned limit = us < hw->poll_limit ? us : hw->poll_limit;
    for (unsigned i = 0; i <= limit; i++) {
        if ((igpu_hw_rd(hw, reg) & mask) == want)
            return IGPU_OK;
        igpu_hw_delay(hw, 1);
    }
    return IGPU_ETIMEDOUT;
}

void igpu_hw_log(struct igpu_hw *hw, const char *fmt, ...)
{
    char msg[160];
    va_list ap;
    if (!hw->mmio.log)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    hw->mmio.log(hw->mmio.ctx, msg);
}

/* ---- forcewake ----------------------------------------------------------------------------- */

/* i915 fw_domain_wait_ack_with_fallback(): toggle FORCEWAKE_KERNEL_FALLBACK, with a growing
 * pause, until the KERNEL ack reads `value` or ten passes are done. */
static int ack_with_fallback(struct igpu_hw *hw, unsigned d, uint32_t value)
{
    unsigned pass = 1;
    bool detected;

    hw->fw_fallbacks++;
    do {
        igpu_hw_wait(hw, fw_ack[d], GEN9_FORCEWAKE_KERNEL_FALLBACK, 0, IGPU_HW_FW_ACK_US);
        igpu_hw_wr(hw, fw_req[d], GEN9_MASKED_BIT_ENABLE(GEN9_FORCEWAKE_KERNEL_FALLBACK));
        igpu_hw_delay(hw, 10u * pass); /* "give gt some time to relax" */
        igpu_hw_wait(hw, fw_ack[d], GEN9_FORCEWAKE_KERNEL_FALLBACK, GEN9_FORCEWAKE_KERNEL_FALLBACK,
                     IGPU_HW_FW_ACK_US);
        detected = (igpu_hw_rd(hw, fw_ack[d]) & GEN9_FORCEWAKE_KERNEL) == value;
        igpu_hw_wr(hw, fw_req[d], GEN9_MASKED_BIT_DISABLE(GEN9_FORCEWAKE_KERNEL_FALLBACK));
    } while (!detected && pass++ < IGPU_HW_FW_FALLBACK_PASSES);
    return detected ? IGPU_OK : IGPU_ETIMEDOUT;
}

/* i915 fw_domain_wait_ack_{clear,set}_fallback(): the plain wait, then the fallback, then one
 * last plain wait whose timeout is only reported. */
static void wait_ack_fallback(struct igpu_hw *hw, unsigned d, uint32_t value)
{
    if (igpu_hw_wait(hw, fw_ack[d], GEN9_FORCEWAKE_KERNEL, value, IGPU_HW_FW_ACK_US) == IGPU_OK)
        return;
    if (ack_with_fallback(hw, d, value) == IGPU_OK)
        return;
    if (igpu_hw_wait(hw, fw_ack[d], GEN9_FORCEWAKE_KERNEL, value, IGPU_HW_FW_ACK_US) == IGPU_OK)
        return;
    hw->fw_ack_timeouts++;
    igpu_hw_log(hw, "igpu: %s: timed out waiting for forcewake ack to %s; carrying on", fw_name[d],
                value ? "be set" : "clear");
}

int igpu_hw_forcewake_get(struct igpu_hw *hw, unsigned domains)
{
    unsigned wake = 0;

    for (unsigned d = 0; d < IGPU_FW_NUM; d++)
        if ((domains & (1u << d)) && hw->fw_count[d]++ == 0)
            wake |= 1u << d;
    /* All requests first, then all acks (i915 fw_domains_get_with_fallback()). */
    for (unsigned d = 0; d < IGPU_FW_NUM; d++) {
        if (!(wake & (1u << d)))
            continue;
        wait_ack_fallback(hw, d, 0);
        igpu_hw_wr(hw, fw_req[d], GEN9_MASKED_BIT_ENABLE(GEN9_FORCEWAKE_KERNEL));
    }
    for (unsigned d = 0; d < IGPU_FW_NUM; d++)
        if (wake & (1u << d))
            wait_ack_fallback(hw, d, GEN9_FORCEWAKE_KERNEL);
    return IGPU_OK;
}

void igpu_hw_forcewake_put(struct igpu_hw *hw, unsigned domains)
{
    for (unsigned d = 0; d < IGPU_FW_NUM; d++)
        if ((domains & (1u << d)) && hw->fw_count[d] && --hw->fw_count[d] == 0)
            igpu_hw_wr(hw, fw_req[d], GEN9_MASKED_BIT_DISABLE(GEN9_FORCEWAKE_KERNEL));
}

void igpu_hw_forcewake_reset(struct igpu_hw *hw)
{
    /* i915 fw_domain_reset(): drop any request left by firmware or a previous owner
     * (WaRsClearFWBitsAtReset: every bit, fw_clear(d, 0xffff), below Gen12). */
    for (unsigned d = 0; d < IGPU_FW_NUM; d++)
        igpu_hw_wr(hw, fw_req[d], GEN9_MASKED_BIT_DISABLE(0xFFFFu));
}
