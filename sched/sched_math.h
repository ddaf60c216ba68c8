/*
 * sched_math.h — exact integer helpers.  The scheduler multiplies nanosecond counts by ratios
 * (weights, calibration factors) whose products can exceed 64 bits; no floating point and no
 * 128-bit division helper from libgcc is assumed in the freestanding build.
 */
#ifndef TESSERA_SCHED_SCHED_MATH_H
#define TESSERA_SCHED_SCHED_MATH_H

#include <stdint.h>

/* floor(a * b / c) computed exactly; UINT64_MAX when the result does not fit or c == 0. */
uint64_t sched_muldiv(uint64_t a, uint64_t b, uint64_t c);

static inline uint64_t sched_sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

static inline uint64_t sched_min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

#endif
