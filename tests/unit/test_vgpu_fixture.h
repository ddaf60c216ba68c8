/* A whole mediated-GPU stack on the host: "physical memory" is one arena, the GPU is the
 * software model, gtt/ and sched/ are the real ones, and each test guest is driven through its
 * vGPU's BAR0 exactly as a guest driver would (GGTT writes, context image, ring, ELSP). */
#ifndef TEST_VGPU_FIXTURE_H
#define TEST_VGPU_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/model/igpu_model.h"
#include "vmm/vgpu/kiosk/kiosk.h"
#include "vmm/vgpu/vgpu.h"

#define FX_PA_BASE 0x1000000ull /* arena's first "physical" address */
/* A test may define these before including the fixture (a wall of many guests). */
#ifndef FX_ARENA
#define FX_ARENA (96ull << 20)
#endif
#ifndef FX_GUESTS
#define FX_GUESTS 2u
#endif
#ifndef FX_GUEST_RAM
#define FX_GUEST_RAM (4ull << 20)
#endif
#ifndef FX_HOST_BYTES
#define FX_HOST_BYTES (2ull << 20)
#endif
#ifndef FX_LOW_MIB
#define FX_LOW_MIB 16u /* each guest's low window ... */
#endif
#ifndef FX_HIGH_MIB
#define FX_HIGH_MIB 128u /* ... and high graphics memory it asks for */
#endif
#ifndef FX_SLICE_NS
#define FX_SLICE_NS SCHED_US(500) /* the render scheduler's slice */
#endif
/* A field of the PV info page (struct vgt_if) as a BAR0 offset, for fx_r/vgpu_mmio_write. */
#define FX_PV(field) (VGT_PVINFO_PAGE + (uint32_t)offsetof(struct vgt_if, field))
#define FX_FB_W      64u
#define FX_FB_H      32u

struct fx_guest {
    unsigned id;
    uint64_t ram_pa;   /* its RAM in the arena */
    uint64_t gm;       /* bump allocator in its low window */
    uint64_t gpa_next; /* bump allocator of its RAM pages */
    uint64_t lrca, ring, fb, seq, hwsp;
    uint32_t ring_size, tail, seqno;
};

struct fx {
    uint8_t *arena;
    uint64_t gsm_pa, host_pa, scratch_pa;
    uint64_t vgpu_scratch_pa[FX_GUESTS]; /* each vGPU's own scratch page */
    uint64_t alloc;                      /* next free arena byte */
    struct igpu_model *model;
    struct igpu *igpu;
    struct gtt gtt;
    struct gtt_layout layout;
    struct sched *sched;
    struct vgpu_dev *dev;
    struct fx_guest g[FX_GUESTS];
    char last_log[256];
    uint64_t cpu_ns;  /* the host clock: advances 1 us per reading (no real timing) */
    uint64_t copy_ns; /* ... and by fx_entry_ns per physical GGTT entry written */
    unsigned warnings;
};

static inline void *fx_ptr(struct fx *f, uint64_t pa)
{
    return f->arena + (pa - FX_PA_BASE);
}

static inline uint64_t fx_take(struct fx *f, uint64_t bytes)
{
    uint64_t pa = FX_PA_BASE + f->alloc;
    f->alloc += (bytes + 4095) & ~4095ull;
    assert_true(f->alloc <= FX_ARENA);
    return pa;
}

static int fx_mem_read(void *ctx, uint64_t pa, void *buf, size_t len)
{
    struct fx *f = ctx;
    if (pa < FX_PA_BASE || pa + len > FX_PA_BASE + FX_ARENA)
        return -1;
    memcpy(buf, fx_ptr(f, pa), len);
    return 0;
}

static int fx_mem_write(void *ctx, uint64_t pa, const void *buf, size_t len)
{
    struct fx *f = ctx;
    if (pa < FX_PA_BASE || pa + len > FX_PA_BASE + FX_ARENA)
        return -1;
    memcpy(fx_ptr(f, pa), buf, len);
    return 0;
}

/* The host CPU's time per physical GGTT entry written (0: writing costs no time), for tests
 * of what copying costs: the model renders on the CPU that copies. */
static uint64_t fx_entry_ns;

static void fx_ggtt_write(void *ctx, uint32_t index, uint64_t pte)
{
    struct fx *f = ctx;
    igpu_ggtt_write(f->igpu, index, pte);
    f->copy_ns += fx_entry_ns;
}

static void fx_ggtt_write_run(void *ctx, uint32_t index, uint32_t n, const uint64_t *ptes)
{
    struct fx *f = ctx;
    assert_int_equal(igpu_ggtt_write_run(f->igpu, index, n, ptes), IGPU_OK);
    f->copy_ns += fx_entry_ns * n;
}

static int fx_translate(void *ctx, unsigned vgpu, uint64_t gpa, uint64_t *hpa)
{
    struct fx *f = ctx;
    if (vgpu >= FX_GUESTS || gpa >= FX_GUEST_RAM)
        return -1;
    *hpa = f->g[vgpu].ram_pa + gpa;
    return 0;
}

static void fx_ggtt_invalidate(void *ctx)
{
    struct fx *f = ctx;
    igpu_ggtt_flush(f->igpu);
}

static int fx_vgpu_scratch(void *ctx, unsigned vgpu, uint64_t *pte)
{
    struct fx *f = ctx;
    if (vgpu >= FX_GUESTS)
        return -1;
    *pte = gen9_ggtt_pte_encode(f->vgpu_scratch_pa[vgpu]);
    return 0;
}

static void *fx_guest_ram(void *ctx, unsigned vm, uint64_t gpa, uint64_t len)
{
    struct fx *f = ctx;
    if (vm >= FX_GUESTS || gpa + len > FX_GUEST_RAM || gpa + len < gpa)
        return NULL;
    return fx_ptr(f, f->g[vm].ram_pa + gpa);
}

static uint64_t fx_now(void *ctx)
{
    struct fx *f = ctx;
    struct igpu_model_stats st;
    igpu_model_stats(f->model, IGPU_BCS, &st);
    return st.clock_ns;
}

static uint64_t fx_run(void *ctx, uint64_t budget)
{
    struct fx *f = ctx;
    uint64_t used = igpu_model_run(f->model, IGPU_BCS, budget);
    if (!used)
        igpu_model_advance(f->model, budget / 10 + 1); /* idle time passes too */
    return used;
}

static uint64_t fx_cpu(void *ctx)
{
    struct fx *f = ctx;
    return (f->cpu_ns += 1000) + f->copy_ns;
}

static const char *fx_fault(void *ctx)
{
    struct fx *f = ctx;
    const struct igpu_model_fault *ft = igpu_model_fault(f->model, IGPU_BCS);
    return ft ? ft->detail : NULL;
}

static int fx_aperture_rw(void *ctx, uint64_t off, void *buf, size_t len, bool write)
{
    struct fx *f = ctx;
    return write ? igpu_model_aperture_write(f->model, off, buf, len)
                 : igpu_model_aperture_read(f->model, off, buf, len);
}

static void fx_log(void *ctx, enum vgpu_log_level l, const char *msg)
{
    struct fx *f = ctx;
    snprintf(f->last_log, sizeof f->last_log, "%s", msg);
    if (l >= VGPU_LOG_WARN)
        f->warnings++;
}

/* Where the model may leave a context for a preemption (tests of preemption set it before
 * fx_create; the default is the model's own, ring command boundaries). */
static enum igpu_model_preempt fx_preempt = IGPU_MODEL_PREEMPT_RING;
/* Each guest's share of the fence pool (0: the fair split). */
static uint64_t fx_fence_share[FX_GUESTS];

/* Builds the stack: FX_GUESTS guests (two unless the test says) with FX_LOW_MIB low windows
 * and FX_HIGH_MIB of high graphics memory in 64 MiB slots, all sharing as the layout places
 * them. */
static inline struct fx *fx_create(const uint32_t weights[FX_GUESTS])
{
    struct fx *f = calloc(1, sizeof *f);
    /* Page aligned like physical memory: an i915 vGPU's PPGTT shadow holds the host
     * addresses of guest pages. */
    f->arena = aligned_alloc(4096, FX_ARENA);
    assert_non_null(f->arena);
    memset(f->arena, 0, FX_ARENA);

    struct igpu_model_config mc;
    igpu_model_config_defaults(&mc);
    mc.preempt = fx_preempt;
    f->gsm_pa = fx_take(f, (uint64_t)mc.ggtt_entries * GEN9_GGTT_PTE_SIZE);
    f->scratch_pa = fx_take(f, 4096);
    for (unsigned i = 0; i < FX_GUESTS; i++)
        f->vgpu_scratch_pa[i] = fx_take(f, 4096);
    f->host_pa = fx_take(f, FX_HOST_BYTES);
    for (unsigned i = 0; i < FX_GUESTS; i++) {
        f->g[i].id = i;
        f->g[i].ram_pa = fx_take(f, FX_GUEST_RAM);
        f->g[i].gpa_next = 1ull << 20;
    }
    mc.mem = (struct igpu_model_mem){ fx_mem_read, fx_mem_write, f };
    mc.gsm_base = f->gsm_pa;
    assert_int_equal(igpu_model_create(&mc, &f->model), IGPU_OK);
    f->igpu = igpu_model_igpu(f->model);

    struct gtt_guest_request req[FX_GUESTS];
    for (unsigned i = 0; i < FX_GUESTS; i++)
        req[i] = (struct gtt_guest_request){ (uint64_t)FX_LOW_MIB << 20,
                                             (uint64_t)FX_HIGH_MIB << 20 };
    struct gtt_layout_params p;
    gtt_layout_defaults(&p, FX_GUESTS, req);
    p.aperture_bytes = mc.aperture_size;
    char err[160];
    assert_int_equal(gtt_layout_compute(&p, &f->layout, err, sizeof err), 0);
    struct gtt_config gc = {
        .layout = &f->layout,
        .ops = { .ctx = f,
                 .ggtt_write = fx_ggtt_write,
                 .translate = fx_translate,
                 .vgpu_scratch = fx_vgpu_scratch,
                 .ggtt_invalidate = fx_ggtt_invalidate,
                 .ggtt_write_run = fx_ggtt_write_run },
        .scratch_pte = gen9_ggtt_pte_encode(f->scratch_pa),
    };
    assert_int_equal(gtt_init(&f->gtt, &gc), 0);
    for (unsigned i = 0; i < FX_GUESTS; i++) {
        const struct gtt_guest_layout *gl = &f->layout.guest[i];
        unsigned slots[8];
        for (unsigned s = 0; s < gl->n_slots; s++)
            slots[s] = gl->first_slot + s;
        struct gtt_vgpu_spec spec = { gl->low, gl->n_slots, slots, 1, 4, fx_fence_share[i] };
        assert_int_equal(gtt_vgpu_create(&f->gtt, i, &spec), 0);
        f->g[i].gm = gl->low.start;
    }
    /* the host area's first FX_HOST_BYTES, mapped by host entries */
    for (uint64_t off = 0; off < FX_HOST_BYTES; off += 4096)
        igpu_ggtt_write(f->igpu, (uint32_t)((f->layout.host.start + off) >> 12),
                        gen9_ggtt_pte_encode(f->host_pa + off));
    igpu_ggtt_flush(f->igpu);

    struct sched_config sc;
    sched_config_default(&sc);
    sc.max_vgpus = FX_GUESTS;
    sc.max_batch = 8;
    sc.slice_ns = FX_SLICE_NS;
    sc.watchdog_ns = SCHED_MS(20);
    struct sched_clock clk = { fx_now, f };
    assert_int_equal(sched_create(&sc, &clk, &f->sched), SCHED_OK);
    for (unsigned i = 0; i < FX_GUESTS; i++)
        assert_int_equal(sched_vgpu_add(f->sched, i, weights ? weights[i] : 100), SCHED_OK);

    struct vgpu_dev_config dc = {
        .gtt = &f->gtt,
        .sched = f->sched,
        .igpu = f->igpu,
        .host = { f->layout.host.start, fx_ptr(f, f->host_pa), FX_HOST_BYTES - 4096 },
        .engine_hws_gm = (uint32_t)(f->layout.host.start + FX_HOST_BYTES - 4096),
        .env = { f, fx_guest_ram, fx_now, fx_run, fx_cpu, fx_fault, fx_log, fx_aperture_rw },
        .max_vgpus = FX_GUESTS,
        .balloon_controller = true,
        .render_budget_ns = 200000,
        .cpu_sched = &sc,
    };
    assert_int_equal(vgpu_dev_create(&dc, &f->dev), 0);
    for (unsigned i = 0; i < FX_GUESTS; i++)
        assert_int_equal(vgpu_create(f->dev, i, FX_FB_W, FX_FB_H, &vgpu_kiosk), 0);
    return f;
}

static inline void fx_destroy(struct fx *f)
{
    vgpu_dev_destroy(f->dev);
    sched_destroy(f->sched);
    gtt_fini(&f->gtt);
    igpu_model_destroy(f->model);
    free(f->arena);
    free(f);
}

/* ---- the test guest's driver ---- */

static inline struct vgpu *fx_v(struct fx *f, unsigned g)
{
    return vgpu_get(f->dev, g);
}

static inline void fx_w32(struct fx *f, unsigned g, uint32_t off, uint32_t val)
{
    assert_true(vgpu_mmio_write(fx_v(f, g), off, 4, val));
}

static inline uint64_t fx_r(struct fx *f, unsigned g, uint32_t off, unsigned size)
{
    uint64_t v = 0;
    assert_true(vgpu_mmio_read(fx_v(f, g), off, size, &v));
    return v;
}

static inline uint8_t *fx_gpa(struct fx *f, unsigned g, uint64_t gpa)
{
    return fx_ptr(f, f->g[g].ram_pa + gpa);
}

/* Allocates n pages of guest graphics memory backed by fresh guest RAM; returns the gm. */
static inline uint64_t fx_gm_alloc(struct fx *f, unsigned g, unsigned pages, uint64_t *gpa_out)
{
    struct fx_guest *q = &f->g[g];
    uint64_t gm = q->gm, gpa = q->gpa_next;
    for (unsigned i = 0; i < pages; i++)
        assert_true(vgpu_mmio_write(fx_v(f, g), VGPU_GGTT_OFFSET + ((gm >> 12) + i) * 8, 8,
                                    (gpa + 4096ull * i) | GEN9_GGTT_PTE_PRESENT));
    q->gm += 4096ull * pages;
    q->gpa_next += 4096ull * pages;
    if (gpa_out)
        *gpa_out = gpa;
    return gm;
}

static inline uint64_t fx_gpa_of(struct fx *f, unsigned g, uint64_t gm)
{
    uint64_t pte = fx_r(f, g, VGPU_GGTT_OFFSET + (gm >> 12) * 8, 8);
    return (pte & GEN9_GGTT_PTE_ADDR_MASK) + (gm & 4095);
}

static inline uint32_t fx_rd(struct fx *f, unsigned g, uint64_t gm)
{
    uint32_t v;
    memcpy(&v, fx_gpa(f, g, fx_gpa_of(f, g, gm)), 4);
    return v;
}

static inline void fx_wr(struct fx *f, unsigned g, uint64_t gm, uint32_t v)
{
    memcpy(fx_gpa(f, g, fx_gpa_of(f, g, gm)), &v, 4);
}

/* Context, ring, framebuffer, breadcrumb page, status page. */
static inline void fx_guest_setup(struct fx *f, unsigned g)
{
    struct fx_guest *q = &f->g[g];
    q->ring_size = 4096;
    q->lrca = fx_gm_alloc(f, g, 2, NULL);
    q->ring = fx_gm_alloc(f, g, 1, NULL);
    q->fb = fx_gm_alloc(f, g, FX_FB_W * FX_FB_H * 4 / 4096, NULL);
    q->seq = fx_gm_alloc(f, g, 1, NULL);
    q->hwsp = fx_gm_alloc(f, g, 1, NULL);
    uint32_t st[1024];
    assert_int_equal(igpu_lrc_init_state(st, 1024, IGPU_BCS, NULL, (uint32_t)q->ring, q->ring_size,
                                         0, 0),
                     0);
    for (unsigned i = 0; i < 1024; i++)
        fx_wr(f, g, q->lrca + 4096 + 4 * i, st[i]);
    fx_w32(f, g, GEN9_RING_HWS_PGA(GEN9_BCS_BASE), (uint32_t)q->hwsp);
}

static inline void fx_emit(struct fx *f, unsigned g, const uint32_t *c, unsigned n)
{
    struct fx_guest *q = &f->g[g];
    for (unsigned i = 0; i < n; i++) {
        fx_wr(f, g, q->ring + q->tail, c[i]);
        q->tail = (q->tail + 4) % q->ring_size;
    }
}

static inline unsigned fx_fill(uint32_t *c, uint64_t dst, uint32_t pitch, unsigned w, unsigned h,
                               uint32_t colour)
{
    c[0] = GEN9_XY_COLOR_BLT;
    c[1] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) | pitch;
    c[2] = GEN9_BLT_COORD(0, 0);
    c[3] = GEN9_BLT_COORD(w, h);
    c[4] = (uint32_t)dst;
    c[5] = (uint32_t)(dst >> 32);
    c[6] = colour;
    return GEN9_XY_COLOR_BLT_LEN;
}

/* Appends cmds + a breadcrumb and submits; returns the breadcrumb value. */
static inline uint32_t fx_submit(struct fx *f, unsigned g, const uint32_t *cmds, unsigned n)
{
    struct fx_guest *q = &f->g[g];
    uint32_t c[8];
    fx_emit(f, g, cmds, n);
    q->seqno++;
    c[0] = GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT;
    c[1] = (uint32_t)q->seq;
    c[2] = 0;
    c[3] = q->seqno;
    unsigned k = 4;
    if ((q->tail / 4 + k) & 1)
        c[k++] = GEN9_MI_NOOP;
    fx_emit(f, g, c, k);
    fx_wr(f, g, q->lrca + 4096 + 4 * GEN9_CTX_RING_TAIL, q->tail);
    uint64_t desc = q->lrca | GEN9_CTX_VALID |
                    (GEN9_CTX_ADDR_LEGACY_32B << GEN9_CTX_ADDRESSING_MODE_SHIFT) |
                    ((uint64_t)(g + 1) << 32);
    fx_w32(f, g, GEN9_RING_ELSP(GEN9_BCS_BASE), 0);
    fx_w32(f, g, GEN9_RING_ELSP(GEN9_BCS_BASE), 0);
    fx_w32(f, g, GEN9_RING_ELSP(GEN9_BCS_BASE), (uint32_t)(desc >> 32));
    fx_w32(f, g, GEN9_RING_ELSP(GEN9_BCS_BASE), (uint32_t)desc);
    return q->seqno;
}

static inline bool fx_retired(struct fx *f, unsigned g)
{
    struct fx_guest *q = &f->g[g];
    return (fx_rd(f, g, q->lrca + 4096 + 4 * GEN9_CTX_RING_HEAD) & GEN9_HEAD_ADDR) == q->tail;
}

static inline void fx_run_until_retired(struct fx *f, unsigned g)
{
    for (unsigned i = 0; i < 100000 && !fx_retired(f, g); i++)
        vgpu_render_step(f->dev);
    assert_true(fx_retired(f, g));
}

static inline const struct tessera_balloon_if *fx_ext(struct fx *f, unsigned g,
                                                      struct tessera_balloon_if *b)
{
    for (unsigned i = 0; i < sizeof *b; i += 4) {
        uint32_t x = (uint32_t)fx_r(f, g, VGT_PVINFO_PAGE + TESSERA_BALLOON_OFFSET + i, 4);
        memcpy((uint8_t *)b + i, &x, 4);
    }
    return b;
}

#endif
