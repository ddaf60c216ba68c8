/* sched_math.c — exact integer helpers (see sched_math.h). */
#include "sched/sched_math.h"

uint64_t sched_muldiv(uint64_t a, uint64_t b, uint64_t c)
{
    /* 128-bit product hi:lo from four 32x32 partial products. */
    uint64_t a_lo = (uint32_t)a, a_hi = a >> 32;
    uint64_t b_lo = (uint32_t)b, b_hi = b >> 32;
    uint64_t p0 = a_lo * b_lo, p1 = a_lo * b_hi, p2 = a_hi * b_lo, p3 = a_hi * b_hi;
    uint64_t mid = (p0 >> 32) + (uint32_t)p1 + (uint32_t)p2;
    uint64_t lo = (mid << 32) | (uint32_t)p0;
    uint64_t hi = p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);

    if (c == 0 || hi >= c)
        return UINT64_MAX; /* quotient would need more than 64 bits */
    if (hi == 0)
        return lo / c;
    /* Restoring long division of hi:lo by c, one quotient bit per step; hi stays < c. */
    uint64_t q = 0;
    for (int i = 0; i < 64; i++) {
        uint64_t carry = hi >> 63;
        hi = (hi << 1) | (lo >> 63);
        lo <<= 1;
        q <<= 1;
        if (carry || hi >= c) {
            hi -= c;
            q |= 1;
        }
    }
    return q;
}
