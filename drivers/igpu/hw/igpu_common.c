/*
 * Small helpers of the backend interface (drivers/igpu/igpu.h) shared by both backends:
 * error and engine names, engine MMIO bases, timestamp unit conversion.
 */
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/igpu.h"

#define NS_PER_S 1000000000ull

const char *igpu_strerror(int err)
{
    switch (err) {
    case IGPU_OK:
        return "ok";
    case IGPU_EINVAL:
        return "invalid argument";
    case IGPU_ERANGE:
        return "out of range";
    case IGPU_EUNSUPPORTED:
        return "not supported by this backend";
    case IGPU_ETIMEDOUT:
        return "hardware did not acknowledge in time";
    case IGPU_EBUSY:
        return "engine busy";
    case IGPU_ENODEV:
        return "no supported Gen9 device";
    case IGPU_ENOMEM:
        return "out of memory";
    case IGPU_EFAULT:
        return "memory access failed";
    default:
        return "unknown error";
    }
}

/* One row per Skylake GT2 engine (i915 intel_engine_cs.c intel_engines[], engine_reset_domains[];
 * intel_execlists_submission.c logical_ring_default_irqs() irq_shifts[]). */
static const struct {
    const char *name;
    uint32_t base;
    unsigned irq_bank, irq_shift;
    uint32_t reset_domain;
} engines[IGPU_NUM_GT_ENGINES] = {
    [IGPU_RCS] = { "rcs", GEN9_RCS_BASE, GEN9_GT_RCS_IRQ_BANK, GEN9_GT_RCS_IRQ_SHIFT,
                   GEN9_GRDOM_RENDER },
    [IGPU_BCS] = { "bcs", GEN9_BCS_BASE, GEN9_GT_BCS_IRQ_BANK, GEN9_GT_BCS_IRQ_SHIFT,
                   GEN9_GRDOM_BLT },
    [IGPU_VCS] = { "vcs", GEN9_VCS_BASE, GEN9_GT_VCS_IRQ_BANK, GEN9_GT_VCS_IRQ_SHIFT,
                   GEN9_GRDOM_MEDIA },
    [IGPU_VECS] = { "vecs", GEN9_VECS_BASE, GEN9_GT_VECS_IRQ_BANK, GEN9_GT_VECS_IRQ_SHIFT,
                    GEN9_GRDOM_VECS },
};

const char *igpu_engine_name(enum igpu_engine e)
{
    return (unsigned)e < IGPU_NUM_GT_ENGINES ? engines[e].name : "?";
}

uint32_t igpu_engine_base(enum igpu_engine e)
{
    return (unsigned)e < IGPU_NUM_GT_ENGINES ? engines[e].base : 0;
}

int igpu_engine_from_base(uint32_t base)
{
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++)
        if (engines[e].base == base)
            return (int)e;
    return -1;
}

bool igpu_engine_irq(enum igpu_engine e, unsigned *bank, unsigned *shift)
{
    if ((unsigned)e >= IGPU_NUM_GT_ENGINES)
        return false;
    *bank = engines[e].irq_bank;
    *shift = engines[e].irq_shift;
    return true;
}

uint32_t igpu_engine_reset_domain(enum igpu_engine e)
{
    return (unsigned)e < IGPU_NUM_GT_ENGINES ? engines[e].reset_domain : 0;
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
