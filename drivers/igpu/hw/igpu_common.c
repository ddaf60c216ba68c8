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
