/*
 * A recording fake of a Gen9 BAR0 for the hardware backend's tests: every MMIO access and
 * delay is logged in order, and the registers the backend's sequences wait on behave as the
 * hardware (and i915's expectations of it) say: forcewake acks follow requests (or are lost
 * until FORCEWAKE_KERNEL_FALLBACK is toggled, or never come), MI_MODE reports MODE_IDLE once
 * STOP_RING is set, RESET_CTL answers READY_TO_RESET to a request and clears CAT_ERROR when it
 * is requested, GDRST self-clears after one read.
 */
#ifndef TEST_IGPU_HW_FAKE_H
#define TEST_IGPU_HW_FAKE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/hw/igpu_hw.h"

enum { RD = 'R', WR = 'W', RD64 = 'r', WR64 = 'w', DELAY = 'D' };

struct op {
    char kind;
    uint32_t off;
    uint64_t val;
};

#define LOG_MAX  512
#define REGS_MAX 64

struct fake {
    struct op log[LOG_MAX];
    unsigned n;
    uint32_t off[REGS_MAX], val[REGS_MAX];
    unsigned nregs;
    bool stuck_ack;     /* forcewake acks never follow the request */
    unsigned lost_acks; /* FORCEWAKE_KERNEL acks lost until the fallback bit is toggled */
    bool gdrst_sticky;  /* GDRST never self-clears */
    bool never_idle;    /* MI_MODE never reports MODE_IDLE */
    bool never_ready;   /* RESET_CTL never reports READY_TO_RESET */
    char msg[8][160];   /* lines the backend logged */
    unsigned n_msg;
};

static inline uint32_t *reg(struct fake *f, uint32_t off)
{
    for (unsigned i = 0; i < f->nregs; i++)
        if (f->off[i] == off)
            return &f->val[i];
    assert_true(f->nregs < REGS_MAX);
    f->off[f->nregs] = off;
    f->val[f->nregs] = 0;
    return &f->val[f->nregs++];
}

static inline void record(struct fake *f, char kind, uint32_t off, uint64_t val)
{
    assert_true(f->n < LOG_MAX);
    f->log[f->n++] = (struct op){ kind, off, val };
}

static inline bool is_engine_reg(uint32_t off, uint32_t (*fn)(uint32_t))
{
    return off == fn(GEN9_RCS_BASE) || off == fn(GEN9_BCS_BASE);
}
static inline uint32_t mi_mode_of(uint32_t b)
{
    return GEN9_RING_MI_MODE(b);
}
static inline uint32_t reset_ctl_of(uint32_t b)
{
    return GEN9_RING_RESET_CTL(b);
}

static uint32_t f_read32(void *ctx, uint32_t off)
{
    struct fake *f = ctx;
    uint32_t v = *reg(f, off);
    if (is_engine_reg(off, mi_mode_of) && (v & GEN9_MI_MODE_STOP_RING) && !f->never_idle)
        v |= GEN9_MI_MODE_IDLE;
    record(f, RD, off, v);
    if (off == GEN9_GDRST && !f->gdrst_sticky)
        *reg(f, off) = 0; /* the reset completes after one read */
    return v;
}

static void f_write32(void *ctx, uint32_t off, uint32_t val)
{
    struct fake *f = ctx;
    static const uint32_t req[3] = { GEN9_FORCEWAKE_RENDER, GEN9_FORCEWAKE_GT,
                                     GEN9_FORCEWAKE_MEDIA };
    static const uint32_t ack[3] = { GEN9_FORCEWAKE_ACK_RENDER, GEN9_FORCEWAKE_ACK_GT,
                                     GEN9_FORCEWAKE_ACK_MEDIA };
    record(f, WR, off, val);
    for (int d = 0; d < 3; d++)
        if (off == req[d]) {
            uint32_t *r = reg(f, off), *a = reg(f, ack[d]);
            *r = gen9_masked_apply(*r, val);
            if (f->stuck_ack)
                return;
            if (f->lost_acks && (*r & GEN9_FORCEWAKE_KERNEL) && !(*a & GEN9_FORCEWAKE_KERNEL) &&
                !(*r & GEN9_FORCEWAKE_KERNEL_FALLBACK)) {
                *a = (*r & GEN9_FORCEWAKE_KERNEL_FALLBACK); /* the KERNEL ack is lost */
                return;
            }
            if (*r & GEN9_FORCEWAKE_KERNEL_FALLBACK && f->lost_acks)
                f->lost_acks--; /* delivered with the fallback ack */
            *a = *r;
            return;
        }
    if (is_engine_reg(off, reset_ctl_of)) {
        uint32_t *r = reg(f, off);
        if (val & GEN9_MASKED_BIT_ENABLE(GEN9_RESET_CTL_CAT_ERROR))
            *r &= ~GEN9_RESET_CTL_CAT_ERROR; /* "need to be cleared by HW" */
        *r = (*r & GEN9_RESET_CTL_CAT_ERROR) |
             (gen9_masked_apply(*r, val & ~GEN9_MASKED_BIT_ENABLE(GEN9_RESET_CTL_CAT_ERROR)) &
              ~(GEN9_RESET_CTL_CAT_ERROR | GEN9_RESET_CTL_READY_TO_RESET));
        if ((*r & GEN9_RESET_CTL_REQUEST_RESET) && !f->never_ready)
            *r |= GEN9_RESET_CTL_READY_TO_RESET;
        return;
    }
    if (is_engine_reg(off, mi_mode_of)) {
        uint32_t *r = reg(f, off);
        *r = gen9_masked_apply(*r, val);
        return;
    }
    *reg(f, off) = val;
}

static uint64_t f_read64(void *ctx, uint32_t off)
{
    struct fake *f = ctx;
    uint64_t v = ((uint64_t)*reg(f, off + 4) << 32) | *reg(f, off);
    record(f, RD64, off, v);
    return v;
}

static void f_write64(void *ctx, uint32_t off, uint64_t val)
{
    struct fake *f = ctx;
    record(f, WR64, off, val);
    *reg(f, off) = (uint32_t)val;
    *reg(f, off + 4) = (uint32_t)(val >> 32);
}

static void f_delay(void *ctx, unsigned us)
{
    record(ctx, DELAY, 0, us);
}

static void f_log(void *ctx, const char *msg)
{
    struct fake *f = ctx;
    snprintf(f->msg[f->n_msg % 8], sizeof f->msg[0], "%s", msg);
    f->n_msg++;
}

/* The last line logged, or "". */
static inline const char *last_msg(const struct fake *f)
{
    return f->n_msg ? f->msg[(f->n_msg - 1) % 8] : "";
}

static inline struct igpu_info info(void)
{
    struct igpu_info in;
    memset(&in, 0, sizeof(in));
    in.vendor = 0x8086;
    in.device = 0x1912;
    in.bar0_size = 16u << 20;
    in.bar2_size = 256u << 20;
    in.ggtt_entries = 1u << 20;
    in.ggtt_size = 8u << 20;
    return in;
}

/* The fake with CTC_MODE as a typical Skylake has it (crystal, shift 2: 12 MHz), then the
 * backend initialised on it; the log is left with init's accesses (test_igpu_hw.c's
 * test_engine_init_sequence checks them). */
static inline void setup_ctc(struct fake *f, struct igpu_hw *hw, bool with_write64, uint32_t ctc,
                             uint32_t ts_override)
{
    memset(f, 0, sizeof(*f));
    struct igpu_mmio mmio = { f_read32, f_write32, f_read64, with_write64 ? f_write64 : NULL,
                              f_delay,  f,         f_log };
    struct igpu_info in = info();
    *reg(f, GEN9_CTC_MODE) = ctc;
    *reg(f, GEN9_TIMESTAMP_OVERRIDE) = ts_override;
    assert_int_equal(igpu_hw_init(hw, &mmio, &in), 0);
}

#define CTC_SKL (2u << GEN9_CTC_SHIFT_SHIFT)

static inline void setup(struct fake *f, struct igpu_hw *hw, bool with_write64)
{
    setup_ctc(f, hw, with_write64, CTC_SKL, 0);
}

static inline void expect(struct fake *f, const struct op *exp, unsigned n)
{
    for (unsigned i = 0; i < n && i < f->n; i++) {
        if (f->log[i].kind != exp[i].kind || f->log[i].off != exp[i].off ||
            f->log[i].val != exp[i].val)
            fail_msg("op %u: got %c 0x%x = 0x%llx, expected %c 0x%x = 0x%llx", i, f->log[i].kind,
                     f->log[i].off, (unsigned long long)f->log[i].val, exp[i].kind, exp[i].off,
                     (unsigned long long)exp[i].val);
    }
    if (f->n != n)
        fail_msg("%u accesses, expected %u (first extra: %c 0x%x)", f->n, n,
                 f->n > n ? f->log[n].kind : '-', f->n > n ? f->log[n].off : 0);
    f->n = 0;
}

/* How many logged accesses match kind, off and val. */
static inline unsigned count_ops(const struct fake *f, char kind, uint32_t off, uint64_t val)
{
    unsigned c = 0;
    for (unsigned i = 0; i < f->n; i++)
        c += f->log[i].kind == kind && f->log[i].off == off && f->log[i].val == val;
    return c;
}

#define FW_SET   0x00010001u /* _MASKED_BIT_ENABLE(FORCEWAKE_KERNEL) */
#define FW_CLEAR 0x00010000u /* _MASKED_BIT_DISABLE(FORCEWAKE_KERNEL) */
#define FB_SET   0x80008000u /* _MASKED_BIT_ENABLE(FORCEWAKE_KERNEL_FALLBACK) */
#define FB_CLEAR 0x80000000u /* _MASKED_BIT_DISABLE(FORCEWAKE_KERNEL_FALLBACK) */
#define AR       GEN9_FORCEWAKE_ACK_RENDER
#define QR       GEN9_FORCEWAKE_RENDER
#define AG       GEN9_FORCEWAKE_ACK_GT
#define QG       GEN9_FORCEWAKE_GT
#define AM       GEN9_FORCEWAKE_ACK_MEDIA
#define QM       GEN9_FORCEWAKE_MEDIA

#endif
