/* gBalloon's Algorithm 1 and its non-contiguous variant (plans only; see balloon.h). */
#include "gtt/balloon.h"

#include <stddef.h>

/* Slots of [a, b) inside the range [p, p + s). */
static unsigned overlap(unsigned p, unsigned s, unsigned a, unsigned b)
{
    unsigned lo = p > a ? p : a, hi = p + s < b ? p + s : b;
    return hi > lo ? hi - lo : 0;
}

static int check(unsigned M, unsigned N, const unsigned *P, const unsigned *S, unsigned K,
                 const unsigned *L, const unsigned *R)
{
    if (!P || !S || !L || !R || K >= N)
        return GTT_EINVAL;
    for (unsigned j = 0; j < N; j++)
        if (S[j] > M || P[j] > M - S[j])
            return GTT_EINVAL;
    return 0;
}

int gtt_balloon_expand(unsigned M, unsigned N, const unsigned *P, const unsigned *S, unsigned K,
                       unsigned Q, unsigned *L, unsigned *R)
{
    int rc = check(M, N, P, S, K, L, R);
    if (rc)
        return rc;
    if (S[K] + Q > M) /* (1) */
        return GTT_ELIMIT;
    unsigned pk = P[K], sk = S[K];
    unsigned right_room = M - pk - sk, left_room = pk;
    unsigned lo = Q - (Q < right_room ? Q : right_room);
    unsigned hi = Q < left_room ? Q : left_room;
    if (lo > hi)
        return GTT_ELIMIT;
    unsigned best = UINT32_MAX, best_l = lo;
    for (unsigned i = lo; i <= hi; i++) { /* (3) */
        unsigned count = 0;
        for (unsigned j = 0; j < N; j++) { /* (5)-(8) */
            if (S[j] == 0)
                continue;
            count += overlap(P[j], S[j], pk - i, pk);
            count += overlap(P[j], S[j], pk + sk, pk + sk + Q - i);
        }
        if (count < best) { /* (10)-(12) */
            best = count;
            best_l = i;
        }
    }
    *L = best_l;
    *R = Q - best_l;
    return 0;
}

int gtt_balloon_reduce(unsigned M, unsigned N, const unsigned *P, const unsigned *S, unsigned K,
                       unsigned Q, unsigned *L, unsigned *R)
{
    int rc = check(M, N, P, S, K, L, R);
    if (rc)
        return rc;
    if (S[K] < Q) /* (1) */
        return GTT_ELIMIT;
    unsigned pk = P[K], sk = S[K];
    long maximum = -1;
    unsigned best_l = 0;
    for (unsigned i = 0; i <= Q; i++) { /* (3) */
        long count = 0;
        for (unsigned j = 0; j < N; j++) {
            if (j == K || S[j] == 0)
                continue;
            count += overlap(P[j], S[j], pk, pk + i);
            count += overlap(P[j], S[j], pk + sk + i - Q, pk + sk);
        }
        if (maximum < count) { /* (12)-(14) */
            maximum = count;
            best_l = i;
        }
    }
    *L = best_l;
    *R = Q - best_l;
    return 0;
}

int gtt_balloon_place(unsigned M, const uint16_t *occ, unsigned Q, unsigned *start)
{
    if (!occ || !start)
        return GTT_EINVAL;
    if (Q == 0 || Q > M)
        return GTT_ELIMIT;
    unsigned long sum = 0, best;
    for (unsigned s = 0; s < Q; s++)
        sum += occ[s];
    best = sum;
    *start = 0;
    for (unsigned a = 1; a + Q <= M; a++) {
        sum += occ[a + Q - 1];
        sum -= occ[a - 1];
        if (sum < best) {
            best = sum;
            *start = a;
        }
    }
    return 0;
}

static bool held_bit(const uint64_t *held, unsigned s)
{
    return (held[s / 64] >> (s % 64)) & 1u;
}

static void sort_asc(unsigned *a, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        unsigned x = a[i], j = i;
        for (; j > 0 && a[j - 1] > x; j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

/* Picks Q slots among those with held(s) == want_held, in the order given by `better`, by
 * repeatedly taking the best candidate ranked after the previous pick (no scratch memory). */
static int pick(unsigned M, const uint16_t *occ, const uint64_t *held, unsigned Q, unsigned *out,
                bool want_held, bool prefer_low_occ)
{
    if (!occ || !held || (Q && !out))
        return GTT_EINVAL;
    unsigned n = 0;
    for (unsigned s = 0; s < M; s++)
        n += held_bit(held, s) == want_held;
    if (n < Q)
        return GTT_ELIMIT;
    /* Rank key: grow prefers (low occupancy, low index); shrink (high occupancy, high index).
     * Encode as one number where smaller is better. */
    uint64_t last = 0;
    bool have_last = false;
    for (unsigned k = 0; k < Q; k++) {
        uint64_t best = UINT64_MAX;
        unsigned best_s = 0;
        for (unsigned s = 0; s < M; s++) {
            if (held_bit(held, s) != want_held)
                continue;
            uint64_t key = prefer_low_occ
                             ? ((uint64_t)occ[s] << 32) | s
                             : ((uint64_t)(0xFFFFu - occ[s]) << 32) | (uint32_t)(UINT32_MAX - s);
            if (have_last && key <= last)
                continue;
            if (key < best) {
                best = key;
                best_s = s;
            }
        }
        out[k] = best_s;
        last = best;
        have_last = true;
    }
    sort_asc(out, Q);
    return 0;
}

int gtt_balloon_sparse_grow(unsigned M, const uint16_t *occ, const uint64_t *held, unsigned Q,
                            unsigned *out)
{
    return pick(M, occ, held, Q, out, false, true);
}

int gtt_balloon_sparse_shrink(unsigned M, const uint16_t *occ, const uint64_t *held, unsigned Q,
                              unsigned *out)
{
    return pick(M, occ, held, Q, out, true, false);
}
