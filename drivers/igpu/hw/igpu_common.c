/*
 * Small helpers of the backend interface (drivers/igpu/igpu.h) shared by both backends:
 * error and engine names, engine MMIO bases, timestamp unit conversion.
 */
#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/igpu.h"

#define NS_PER_S 1000000000ull

const char *igpu_strerror(int err)
{
    switch (err) {
    case IGPU_OK:           return "ok";
    case IGPU_EINVAL:       return "invalid argument";
    case IGPU_ERANGE:       return "out of range";
    case IGPU_EUNSUPPORTED: return "not supported by this backend";
    case IGPU_ETIMEDOUT:    return "hardware did not acknowledge in time";
    case IGPU_EBUSY:        return "engine busy";
    case IGPU_ENODEV:       return "no supported Gen9 device";
    case IGPU_ENOMEM:       return "out of memory";
    case IGPU_EFAULT:       return "memory access failed";
    default:                return "unknown error";
    }
}

const char *igpu_engine_name(enum igpu_engine e)
{
    switch (e) {
    case IGPU_RCS: return "rcs";
    case IGPU_BCS: return "bcs";
    default:       return "?";
    }
}

uint32_t igpu_engine_base(enum igpu_engine e)
{
    switch (e) {
    case IGPU_RCS: return GEN9_RCS_BASE;
    case IGPU_BCS: return GEN9_BCS_BASE;
    default:       return 0;
    }
}

uint64_t igpu_ticks_to_ns(uint64_t ticks, uint32_t hz)
{
    /* Split so neither product can overflow: r < hz < 2^32 and 1e9 < 2^30. */
    uint64_t q = ticks / hz, r = ticks % hz;
    return q * NS_PER_S + r * NS_PER_S / hz;
}

uint64_t igpu_ns_to_ticks(uint64_t ns, uint32_t hz)
{
    uint64_t q = ns / NS_PER_S, r = ns % NS_PER_S;
    return q * hz + r * hz / NS_PER_S;
}

/* Largest ring RING_CTL can describe: 512 pages (GEN9_RING_NR_PAGES is 9 bits of pages). */
#define RING_MAX_SIZE ((GEN9_RING_NR_PAGES >> 12) * GEN9_GTT_PAGE_SIZE + GEN9_GTT_PAGE_SIZE)
#define STATE_PAGE_DW (GEN9_GTT_PAGE_SIZE / 4u)

int igpu_lrc_init_state(uint32_t *s, size_t n_dw, enum igpu_engine e, uint32_t ring_gaddr,
                        uint32_t ring_size, uint32_t head, uint32_t tail)
{
    uint32_t b = igpu_engine_base(e);

    if (!s || n_dw < STATE_PAGE_DW || !b || (ring_gaddr & GEN9_GTT_PAGE_MASK) ||
        ring_size == 0 || (ring_size & GEN9_GTT_PAGE_MASK) || ring_size > RING_MAX_SIZE ||
        head >= ring_size || tail >= ring_size || (head & 3u) || (tail & 7u))
        return IGPU_EINVAL;
    for (size_t i = 0; i < STATE_PAGE_DW; i++)
        s[i] = GEN9_MI_NOOP;
    /* Block 0: the five registers the engine needs to run a ring, at the positions the
     * hardware uses (i915 gt/intel_lrc_reg.h CTX_*: value dword, offset dword just before). */
    s[GEN9_CTX_LRI_HEADER_0] = GEN9_MI_LOAD_REGISTER_IMM(5) | GEN9_MI_LRI_FORCE_POSTED;
    s[GEN9_CTX_CONTEXT_CONTROL - 1u] = GEN9_RING_CONTEXT_CONTROL(b);
    s[GEN9_CTX_CONTEXT_CONTROL] = GEN9_MASKED_BIT_DISABLE(GEN9_CTX_CTRL_RESTORE_INHIBIT |
                                                          GEN9_CTX_CTRL_SAVE_INHIBIT);
    s[GEN9_CTX_RING_HEAD - 1u] = GEN9_RING_HEAD(b);
    s[GEN9_CTX_RING_HEAD] = head;
    s[GEN9_CTX_RING_TAIL - 1u] = GEN9_RING_TAIL(b);
    s[GEN9_CTX_RING_TAIL] = tail;
    s[GEN9_CTX_RING_START - 1u] = GEN9_RING_START(b);
    s[GEN9_CTX_RING_START] = ring_gaddr;
    s[GEN9_CTX_RING_CTL - 1u] = GEN9_RING_CTL(b);
    s[GEN9_CTX_RING_CTL] = ((ring_size - GEN9_GTT_PAGE_SIZE) & GEN9_RING_NR_PAGES) |
                           GEN9_RING_VALID;
    /* Block 1: the context timestamp. */
    s[GEN9_CTX_LRI_HEADER_1] = GEN9_MI_LOAD_REGISTER_IMM(1) | GEN9_MI_LRI_FORCE_POSTED;
    s[GEN9_CTX_TIMESTAMP - 1u] = GEN9_RING_CTX_TIMESTAMP(b);
    s[GEN9_CTX_TIMESTAMP] = 0;
    s[GEN9_CTX_TIMESTAMP + 1u] = GEN9_MI_BATCH_BUFFER_END;
    return IGPU_OK;
}
