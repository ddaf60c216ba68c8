/*
 * Shared set-up for the Gen9 model's unit tests: a flat "physical memory" reached through the
 * model's accessor callbacks, with the GGTT entries at physical address 0, and helpers that
 * map graphics pages, run a command list on an engine and read results back.
 *
 * Layout: GGTT entries at [0, entries * 8); data pages from FX_DATA_PA on. Graphics page i
 * maps to physical FX_DATA_PA + i * 4 KiB unless a test maps it elsewhere or clears it.
 */
#ifndef TESSERA_TESTS_UNIT_TEST_IGPU_MODEL_FIXTURE_H
#define TESSERA_TESTS_UNIT_TEST_IGPU_MODEL_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/igpu.h"
#include "drivers/igpu/model/igpu_model.h"

#define FX_ENTRIES   2048u /* 8 MiB of graphics memory */
#define FX_DATA_PA   0x10000u
#define FX_MEM_SIZE  (FX_DATA_PA + FX_ENTRIES * 4096u)
#define FX_HWS       0x000000u /* status pages and contexts */
#define FX_HWS_BCS   0x001000u
#define FX_CTX_A     0x002000u /* two pages each */
#define FX_CTX_B     0x004000u
#define FX_CTX_C     0x006000u
#define FX_RING      0x010000u /* 16 KiB ring for context A */
#define FX_RING_B    0x014000u
#define FX_RING_C    0x018000u
#define FX_RING_SIZE 0x4000u
#define FX_BATCH     0x020000u
#define FX_DATA      0x100000u /* scratch graphics memory for results */

struct fx {
    uint8_t *mem;
    struct igpu_model *m;
    struct igpu *g;
    /* accesses to [deny_lo, deny_hi) physical are refused */
    uint64_t deny_lo, deny_hi;
    unsigned irqs;
};

static int fx_read(void *ctx, uint64_t pa, void *buf, size_t len)
{
    struct fx *f = ctx;
    if (pa >= FX_MEM_SIZE || len > FX_MEM_SIZE - pa)
        return -1;
    if (pa < f->deny_hi && pa + len > f->deny_lo)
        return -1;
    memcpy(buf, f->mem + pa, len);
    return 0;
}

static int fx_write(void *ctx, uint64_t pa, const void *buf, size_t len)
{
    struct fx *f = ctx;
    if (pa >= FX_MEM_SIZE || len > FX_MEM_SIZE - pa)
        return -1;
    if (pa < f->deny_hi && pa + len > f->deny_lo)
        return -1;
    memcpy(f->mem + pa, buf, len);
    return 0;
}

static void fx_irq(void *ctx)
{
    ((struct fx *)ctx)->irqs++;
}

static inline uint64_t fx_pa(uint64_t gaddr)
{
    return FX_DATA_PA + gaddr;
}

static inline void fx_map_all(struct fx *f)
{
    for (uint32_t i = 0; i < FX_ENTRIES; i++)
        assert_int_equal(igpu_ggtt_write(f->g, i, gen9_ggtt_pte_encode(fx_pa((uint64_t)i << 12))),
                         0);
    assert_int_equal(igpu_ggtt_flush(f->g), 0);
}

static inline void fx_init_cfg(struct fx *f, const struct igpu_model_config *override)
{
    struct igpu_model_config cfg;
    memset(f, 0, sizeof(*f));
    f->mem = calloc(1, FX_MEM_SIZE);
    assert_non_null(f->mem);
    if (override) {
        cfg = *override;
    } else {
        igpu_model_config_defaults(&cfg);
        cfg.ggtt_entries = FX_ENTRIES;
        cfg.aperture_size = (uint64_t)FX_ENTRIES * 4096u;
    }
    cfg.mem.read = fx_read;
    cfg.mem.write = fx_write;
    cfg.mem.ctx = f;
    cfg.gsm_base = 0;
    cfg.irq = fx_irq;
    cfg.irq_ctx = f;
    assert_int_equal(igpu_model_create(&cfg, &f->m), 0);
    f->g = igpu_model_igpu(f->m);
    fx_map_all(f);
    assert_int_equal(igpu_engine_init(f->g, IGPU_RCS, FX_HWS), 0);
    assert_int_equal(igpu_engine_init(f->g, IGPU_BCS, FX_HWS_BCS), 0);
}

static inline void fx_init(struct fx *f)
{
    fx_init_cfg(f, NULL);
}

static inline void fx_fini(struct fx *f)
{
    igpu_model_destroy(f->m);
    free(f->mem);
}

static inline uint32_t fx_rd32(struct fx *f, uint64_t gaddr)
{
    uint32_t v;
    memcpy(&v, f->mem + fx_pa(gaddr), 4);
    return v;
}

static inline uint64_t fx_rd64(struct fx *f, uint64_t gaddr)
{
    uint64_t v;
    memcpy(&v, f->mem + fx_pa(gaddr), 8);
    return v;
}

static inline void fx_wr32(struct fx *f, uint64_t gaddr, uint32_t v)
{
    memcpy(f->mem + fx_pa(gaddr), &v, 4);
}

static inline uint32_t fx_reg(struct fx *f, uint32_t reg)
{
    uint32_t v = 0xDEADBEEF;
    assert_int_equal(igpu_reg_read(f->g, reg, &v), 0);
    return v;
}

/* Physical memory itself, for what no GGTT entry maps: PPGTT tables and the pages they map. */
static inline void fx_phys_wr64(struct fx *f, uint64_t pa, uint64_t v)
{
    memcpy(f->mem + pa, &v, 8);
}

static inline uint32_t fx_phys_rd32(struct fx *f, uint64_t pa)
{
    uint32_t v;
    memcpy(&v, f->mem + pa, 4);
    return v;
}

/* A PPGTT entry pointing at physical page pa, present and writable. */
#define FX_PDE(pa) ((pa) | GEN9_PPGTT_PRESENT | GEN9_PPGTT_RW)

/* Set up context A on engine e, submit cmds, run until idle; returns the busy ns. */
static inline uint64_t fx_run_cmds(struct fx *f, enum igpu_engine e, const uint32_t *cmds, size_t n)
{
    assert_int_equal(igpu_model_ctx_init(f->m, e, FX_CTX_A, FX_RING, FX_RING_SIZE), 0);
    assert_int_equal(igpu_model_submit_ring(f->m, e, FX_CTX_A, 0x11, cmds, n), 0);
    return igpu_model_run_until_idle(f->m, e, 1000000000ull);
}

/* Drain the CSB of engine e. */
static inline int fx_csb(struct fx *f, enum igpu_engine e, struct igpu_csb_event *ev, unsigned max)
{
    return igpu_csb_read(f->g, e, ev, max);
}

#endif /* TESSERA_TESTS_UNIT_TEST_IGPU_MODEL_FIXTURE_H */
