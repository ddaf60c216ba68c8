/* Ballooning plans: which slots a vGPU gains or gives back.  Pure functions over slot counts;
 * gtt/slots.c applies them to a struct gtt.
 *
 * Contiguous mode is gBalloon's Algorithm 1 (Park et al. 2019, §3.3): a vGPU holds slots
 * [P, P + S); to grow by Q it takes L slots on the left and R = Q - L on the right, choosing the
 * L that adds the fewest slot-occupancies by other vGPUs (the leftmost such L on ties); to shrink
 * by Q it gives back L on the left and R on the right, choosing the L that removes the most
 * shared occupancy (the smallest such L on ties).
 *
 * Sparse mode (gBalloon's future work) drops contiguity: grow takes the Q least-occupied slots
 * the vGPU does not hold, shrink gives back the Q most-shared slots it holds. */
#ifndef GTT_BALLOON_H
#define GTT_BALLOON_H

#include <stdbool.h>
#include <stdint.h>

#include "gtt/err.h"

/* Algorithm 1, Expansion, as published: M slots, N vGPUs with start P[j] and count S[j]
 * (S[j] == 0: holds none), vGPU K asks for Q more.  0 and *L, *R; GTT_ELIMIT if
 * S[K] + Q > M or no split fits inside [0, M); GTT_EINVAL on bad arguments. */
int gtt_balloon_expand(unsigned M, unsigned N, const unsigned *P, const unsigned *S, unsigned K,
                       unsigned Q, unsigned *L, unsigned *R);
/* Algorithm 1, Reduction: vGPU K gives back Q.  GTT_ELIMIT if S[K] < Q. */
int gtt_balloon_reduce(unsigned M, unsigned N, const unsigned *P, const unsigned *S, unsigned K,
                       unsigned Q, unsigned *L, unsigned *R);

/* Where a vGPU that holds no slot yet should put a fresh contiguous range of Q slots: the start
 * with the fewest occupancies over the range (occ[s] = vGPUs holding slot s), leftmost on ties.
 * GTT_ELIMIT if Q > M or Q == 0. */
int gtt_balloon_place(unsigned M, const uint16_t *occ, unsigned Q, unsigned *start);

/* Sparse mode.  held(s) says whether the vGPU holds slot s (bitmap, M bits).  Writes Q slot
 * numbers to out[], ascending.  GTT_ELIMIT if there are not Q candidates. */
int gtt_balloon_sparse_grow(unsigned M, const uint16_t *occ, const uint64_t *held, unsigned Q,
                            unsigned *out);
int gtt_balloon_sparse_shrink(unsigned M, const uint16_t *occ, const uint64_t *held, unsigned Q,
                              unsigned *out);

#endif
