/* hog: the performance-isolation attacks (main.c, attacks.c) and the victim they
 * are measured against (victim.c).  The attacks break no memory boundary: each takes more than
 * its share of something the guests share (GPU time, hypervisor CPU time, the fence pool, the
 * console).  tools/bench-isolation boots one attack at a time beside the victim, or runs a
 * sequence of them (attack=seq) beside the ordinary victim (role=pacer), and prints the
 * victim's frame rate and the shell's answer time. */
#ifndef TESSERA_GUESTS_HOG_HOG_H
#define TESSERA_GUESTS_HOG_HOG_H

#include "guests/lib/guest.h"
#include "guests/lib/vgpu.h"

#include <stdbool.h>
#include <stdint.h>

#define HOG       "hog"
#define STATUS_US (2u * 1000u * 1000u)

#define HOG_PITCH_PX \
    8000u /* big surfaces: a 32000-byte pitch, under BR13's
                                         * signed 16 bits */

extern struct vgpu_kiosk k;
extern uint64_t hog_target_ms, hog_giant_ms;

/* Rows of HOG_PITCH_PX pixels the largest big surface can have. */
uint32_t hog_max_rows(void);

/* GPU time of one fill of `pixels` pixels, measured on this vGPU with CTX_TIMESTAMP (the
 * context's own run time: what the scheduler charges); 0 if the measurement failed. */
uint64_t hog_measure_fill_ns(uint64_t pixels);

/* A surface of `rows` rows of HOG_PITCH_PX 32-bpp pixels in the guest's high graphics memory
 * (else its low), every MiB of it mapped to the same MiB of RAM, so a little RAM backs a lot
 * of pixels.  False if it does not fit. */
bool hog_big_surface(uint32_t rows, uint64_t *gm);

/* attacks.c: each runs until guest time hog_until_us (printing a status line every STATUS_US),
 * then gives back what it holds and waits for its work. */
extern uint64_t hog_until_us;
void attack_idle(void);
void attack_drain_runaway(void);
void attack_fence_storm(void);
void attack_giant_blit(void);
void attack_long_work(void);
void attack_fence_hog(void);
void attack_log_flood(void);
void attack_noop_reject(void);
void attack_elsp_foreign(void);
void attack_noop_flood(void);

/* victim.c: the well-behaved guest beside the hog (cmdline role=victim); never returns. */
int victim_main(const struct tessera_boot_info *boot);
/* pacer.c: the ordinary victim (cmdline role=pacer): a small frame, then a frame period of
 * sleep in 10 ms steps, over and over; never returns. */
int pacer_main(const struct tessera_boot_info *boot);

#endif
