/* Fuzzes a whole vGPU through BAR0, as a hostile guest kernel reaches it: the device core
 * (vmm/vgpu/core), both personalities (an i915 guest and a Tessera kiosk guest), the vgt blocks
 * behind the i915 one (register file, interrupt controller, four execlist sequencers, PPGTT
 * shadow), the MI-only streamer, the scanner, the real gtt/ and sched/, and the software GPU
 * model, all over one arena of "physical memory".
 *
 * Each input starts both guests the way their drivers do (the i915 guest: interrupts reset and
 * enabled, a kernel PPGTT announced, a context, ring and status page on each of the four
 * engines; the kiosk guest: its context, ring, framebuffer and status page), picks one of them
 * as the hostile guest and then lets it do, in any order: register reads and writes anywhere in
 * BAR0 (any size, aligned or not), ELSP submissions of its contexts or of any descriptor,
 * requests with templated or raw commands in its rings (stores, batch starts into GGTT and
 * PPGTT memory, register loads, flushes, blits), GGTT entry writes (any index, any address),
 * PV info page writes (PPGTT create/destroy with any root, balloon and move notifications),
 * CPU writes to any page of its RAM (page tables included: a protected page exits first, as
 * the EPT makes it), aperture accesses, fence writes, render-loop steps, balloon and placement
 * periods, engine and device resets.  Properties, checked as it goes and at the end:
 *   - nothing crashes (ASan, UBSan);
 *   - the other guest's RAM is untouched outside the pages its own setup uses;
 *   - the GPU writes only guest RAM, the host area, scratch pages and the GGTT's entries:
 *     never a shadow page-table page or any other hypervisor page;
 *   - the vGPU hands the hypervisor only the i915 guest's own RAM pages or its scratch page to
 *     reach (phys_ptr), and write-protects only pages of that guest's RAM;
 *   - outside the render loop (where the blitter may write a page that became a table after
 *     its leaf was shadowed, docs/vgpu-i915.md), no write-protected page changes except by
 *     the guest's own CPU writes: the streamer and status-page writes never reach a table;
 *   - a shadow page freed and not yet given out again is not written (use after free);
 *   - misaligned BAR0 accesses are refused;
 *   - when both vGPUs are destroyed every shadow page is back and no page stays protected. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/model/igpu_model.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_cursor.h"
#include "vmm/vgpu/i915/vgpu_i915.h"
#include "vmm/vgpu/kiosk/kiosk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the machine ---------------------------------------------------------------------------
 * One arena of "physical memory": the GGTT's entries, the scratch pages, the hypervisor's host
 * area, two guests' RAM and the pool of pages the PPGTT shadow takes from. */
#define PA_BASE      0x1000000ull
#define NG           2u    /* guest 0: i915; guest 1: kiosk */
#define GGTT_ENTRIES 4096u /* 16 MiB of graphics memory */
#define APERTURE     (8ull << 20)
#define HOST_BYTES   (512ull << 10)
#define RAM_BYTES    (512ull << 10)
#define POOL_PAGES   96u        /* fewer than the shadow's table limit: it runs out */
#define RAM_FIRST    0x10000ull /* guests' setup takes pages from here up */
#define POISON       0xA5u

enum {
    A_GSM = 0,
    A_SCRATCH = A_GSM + GGTT_ENTRIES * 8u,
    A_VSCRATCH = A_SCRATCH + 4096u,
    A_HOST = A_VSCRATCH + NG * 4096u,
    A_RAM = A_HOST + (unsigned)HOST_BYTES,
    A_POOL = A_RAM + NG * (unsigned)RAM_BYTES,
    A_END = A_POOL + POOL_PAGES * 4096u,
};

static uint8_t *arena;
static uint8_t poison_page[4096], canary[NG][RAM_BYTES];
static bool pool_used[POOL_PAGES];
static unsigned pool_live;

static uint64_t pa(unsigned off)
{
    return PA_BASE + off;
}
static uint8_t *ptr(uint64_t p)
{
    return arena + (p - PA_BASE);
}
static bool within(uint64_t p, uint64_t len, unsigned off, uint64_t bytes)
{
    return p >= pa(off) && len <= bytes && p - pa(off) <= bytes - len;
}
static uint64_t ram_pa(unsigned g)
{
    return pa(A_RAM) + g * RAM_BYTES;
}

struct guest {
    uint64_t gm, gpa_next; /* bump allocators: graphics memory, RAM pages */
    uint64_t lrca[IGPU_NUM_GT_ENGINES], ring[IGPU_NUM_GT_ENGINES], hwsp[IGPU_NUM_GT_ENGINES];
    uint32_t tail[IGPU_NUM_GT_ENGINES];
    uint64_t batch, data; /* GGTT pages for batches and stores */
};

static struct {
    struct igpu_model *model;
    struct igpu *igpu;
    struct gtt gtt;
    struct gtt_layout layout;
    struct sched *sched;
    struct vgpu_dev *dev;
    struct guest g[NG];
    uint64_t cpu_ns;
    unsigned hostile, msi_ok;
    unsigned wanted, wanted_calls; /* another CPU waits for the step every other time it asks */
    uint64_t pml4, pt, va_data, va_batch; /* the i915 guest's kernel PPGTT */
    uint64_t pp_batch;                    /* the RAM page behind va_batch */
    /* Pages of the i915 guest's RAM the vGPU protects, and what they held when protected. */
    uint64_t prot[64];
    uint8_t prot_copy[64][4096];
    unsigned n_prot;
} m;

#define VA         0x7FFF00010000ull /* a user address in the PPGTT */
#define RING_PAGES 2u

/* ---- what the hypervisor gives the model and the vGPU --------------------------------------- */

static int mem_read(void *ctx, uint64_t p, void *buf, size_t len)
{
    if (!within(p, len, 0, A_END))
        return -1;
    memcpy(buf, ptr(p), len);
    return 0;
}

/* The GPU writes guest RAM, the host area, scratch pages or GGTT entries: nothing else. */
static int mem_write(void *ctx, uint64_t p, const void *buf, size_t len)
{
    check(within(p, len, A_GSM, A_HOST - A_GSM + HOST_BYTES) ||
          within(p, len, A_RAM, NG * RAM_BYTES));
    memcpy(ptr(p), buf, len);
    return 0;
}

static void ggtt_write(void *ctx, uint32_t index, uint64_t pte)
{
    igpu_ggtt_write(m.igpu, index, pte);
}

static void ggtt_write_run(void *ctx, uint32_t index, uint32_t n, const uint64_t *ptes)
{
    check(igpu_ggtt_write_run(m.igpu, index, n, ptes) == IGPU_OK);
}

static int translate(void *ctx, unsigned vgpu, uint64_t gpa, uint64_t *hpa)
{
    if (vgpu >= NG || gpa >= RAM_BYTES)
        return -1;
    *hpa = ram_pa(vgpu) + gpa;
    return 0;
}

static void ggtt_invalidate(void *ctx)
{
    igpu_ggtt_flush(m.igpu);
}

static int vgpu_scratch(void *ctx, unsigned vgpu, uint64_t *pte)
{
    if (vgpu >= NG)
        return -1;
    *pte = gen9_ggtt_pte_encode(pa(A_VSCRATCH) + 4096u * vgpu);
    return 0;
}

static void *guest_ram(void *ctx, unsigned vm, uint64_t gpa, uint64_t len)
{
    if (vm >= NG || gpa >= RAM_BYTES || len > RAM_BYTES - gpa)
        return NULL;
    return ptr(ram_pa(vm) + gpa);
}

static uint64_t now_ns(void *ctx)
{
    struct igpu_model_stats st;
    igpu_model_stats(m.model, IGPU_BCS, &st);
    return st.clock_ns;
}

static uint64_t gpu_run(void *ctx, uint64_t budget)
{
    uint64_t used = igpu_model_run(m.model, IGPU_BCS, budget);
    if (!used)
        igpu_model_advance(m.model, budget / 10 + 1);
    return used;
}

static uint64_t cpu_ns(void *ctx)
{
    return m.cpu_ns += 1000;
}

static const char *gpu_fault(void *ctx)
{
    const struct igpu_model_fault *f = igpu_model_fault(m.model, IGPU_BCS);
    return f ? f->detail : NULL;
}

static void log_line(void *ctx, enum vgpu_log_level l, const char *msg)
{
    check(msg && strlen(msg) < 1024);
}

static int aperture_rw(void *ctx, uint64_t off, void *buf, size_t len, bool write)
{
    return write ? igpu_model_aperture_write(m.model, off, buf, len)
                 : igpu_model_aperture_read(m.model, off, buf, len);
}

/* Shadow pages: a free page holds the poison, so a write after its free shows at its next
 * allocation. */
static int page_alloc(void *ctx, uint64_t *hpa, void **va)
{
    for (unsigned i = 0; i < POOL_PAGES; i++) {
        if (pool_used[i])
            continue;
        uint8_t *p = arena + A_POOL + 4096u * i;
        check(!memcmp(p, poison_page, 4096));
        memset(p, 0, 4096);
        pool_used[i] = true;
        pool_live++;
        *hpa = pa(A_POOL) + 4096u * i;
        *va = p;
        return 0;
    }
    return -1;
}

static void page_free(void *ctx, uint64_t hpa, void *va)
{
    check(within(hpa, 4096, A_POOL, POOL_PAGES * 4096ull) && !(hpa & 4095u));
    unsigned i = (unsigned)((hpa - pa(A_POOL)) / 4096u);
    check(pool_used[i] && va == ptr(hpa));
    memset(va, POISON, 4096);
    pool_used[i] = false;
    pool_live--;
}

static int guest_phys(void *ctx, unsigned vm, uint64_t gpa, uint64_t *p)
{
    return translate(ctx, vm, gpa, p);
}

/* What the vGPU reaches by physical address: the i915 guest's RAM or its scratch page. */
static void *phys_ptr(void *ctx, uint64_t p, uint64_t len)
{
    const struct vgpu_i915 *g = i915_of(vgpu_get(m.dev, 0));
    check(within(p, len, A_RAM, RAM_BYTES) ||
          (p >= g->scratch_hpa && len <= 4096u && p - g->scratch_hpa <= 4096u - len));
    return ptr(p);
}

static int prot_find(uint64_t gpa)
{
    for (unsigned i = 0; i < m.n_prot; i++)
        if (m.prot[i] == gpa)
            return (int)i;
    return -1;
}

static void protect(void *ctx, unsigned vm, uint64_t gpa, bool on)
{
    int i = prot_find(gpa);
    check(vm == 0 && !(gpa & 4095u) && gpa < RAM_BYTES);
    if (on && i < 0) {
        check(m.n_prot < 64u);
        m.prot[m.n_prot] = gpa;
        memcpy(m.prot_copy[m.n_prot++], ptr(ram_pa(0) + gpa), 4096);
    } else if (!on && i >= 0) {
        m.n_prot--;
        m.prot[i] = m.prot[m.n_prot];
        memcpy(m.prot_copy[i], m.prot_copy[m.n_prot], 4096);
    }
}

static bool msi(void *ctx, unsigned vm)
{
    check(vm == 0);
    return m.msi_ok;
}

static bool cpu_wanted(void *ctx)
{
    return m.wanted && (++m.wanted_calls & 1u);
}

/* No write-protected page changed behind the guest's CPU (re-taken after render steps). */
static void check_protected(bool retake)
{
    for (unsigned i = 0; i < m.n_prot; i++) {
        uint8_t *p = ptr(ram_pa(0) + m.prot[i]);
        if (retake)
            memcpy(m.prot_copy[i], p, 4096);
        else
            check(!memcmp(m.prot_copy[i], p, 4096));
    }
}

/* ---- building the machine ------------------------------------------------------------------- */

static bool build(void)
{
    struct igpu_model_config mc;
    igpu_model_config_defaults(&mc);
    mc.mem = (struct igpu_model_mem){ mem_read, mem_write, NULL };
    mc.gsm_base = pa(A_GSM);
    mc.ggtt_entries = GGTT_ENTRIES;
    mc.aperture_size = APERTURE;
    check(igpu_model_create(&mc, &m.model) == IGPU_OK);
    m.igpu = igpu_model_igpu(m.model);

    struct gtt_guest_request req[NG] = { { 2ull << 20, 4ull << 20 }, { 2ull << 20, 4ull << 20 } };
    struct gtt_layout_params lp;
    gtt_layout_defaults(&lp, NG, req);
    lp.ggtt_bytes = (uint64_t)GGTT_ENTRIES * 4096u;
    lp.aperture_bytes = APERTURE;
    lp.host_area_bytes = 1ull << 20;
    lp.fence_pool_bytes = 1ull << 20;
    lp.slot_bytes = 4ull << 20;
    check(gtt_layout_compute(&lp, &m.layout, NULL, 0) == 0);
    struct gtt_config gc = {
        .layout = &m.layout,
        .ops = { .ggtt_write = ggtt_write,
                 .translate = translate,
                 .vgpu_scratch = vgpu_scratch,
                 .ggtt_invalidate = ggtt_invalidate,
                 .ggtt_write_run = ggtt_write_run },
        .scratch_pte = gen9_ggtt_pte_encode(pa(A_SCRATCH)),
    };
    check(gtt_init(&m.gtt, &gc) == 0);
    for (unsigned i = 0; i < NG; i++)
        check(gtt_vgpu_create_from_layout(&m.gtt, i) == 0);
    for (uint64_t off = 0; off < HOST_BYTES; off += 4096)
        igpu_ggtt_write(m.igpu, (uint32_t)((m.layout.host.start + off) >> 12),
                        gen9_ggtt_pte_encode(pa(A_HOST) + off));
    igpu_ggtt_flush(m.igpu);

    struct sched_config sc;
    sched_config_default(&sc);
    sc.max_vgpus = NG;
    sc.max_batch = 8;
    sc.slice_ns = SCHED_US(500);
    sc.watchdog_ns = SCHED_MS(20);
    struct sched_clock clk = { now_ns, NULL };
    check(sched_create(&sc, &clk, &m.sched) == SCHED_OK);
    for (unsigned i = 0; i < NG; i++)
        check(sched_vgpu_add(m.sched, i, 100) == SCHED_OK);

    struct vgpu_dev_config dc = {
        .gtt = &m.gtt,
        .sched = m.sched,
        .igpu = m.igpu,
        .host = { m.layout.host.start, arena + A_HOST, HOST_BYTES - 4096 },
        .engine_hws_gm = (uint32_t)(m.layout.host.start + HOST_BYTES - 4096),
        .env = { NULL, guest_ram, now_ns, gpu_run, cpu_ns, gpu_fault, log_line, aperture_rw,
                 page_alloc, page_free, guest_phys, phys_ptr, protect, msi, cpu_wanted },
        .max_vgpus = NG,
        .balloon_controller = true,
        .render_budget_ns = 200000,
        .cpu_sched = &sc, /* the i915 guest's RCS/VCS/VECS run on the CPU, scheduled like this */
    };
    check(vgpu_dev_create(&dc, &m.dev) == 0);
    check(vgpu_create(m.dev, 0, 64, 32, &vgpu_i915) == 0);
    check(vgpu_create(m.dev, 1, 64, 32, &vgpu_kiosk) == 0);
    return true;
}

static void teardown(void)
{
    vgpu_dev_destroy(m.dev);
    sched_destroy(m.sched);
    gtt_fini(&m.gtt);
    igpu_model_destroy(m.model);
    /* Every shadow page back, every protection lifted. */
    check(pool_live == 0 && m.n_prot == 0);
}

/* ---- the guests' drivers -------------------------------------------------------------------- */

static struct vgpu *V(unsigned g)
{
    return vgpu_get(m.dev, g);
}

static void w32(unsigned g, uint32_t off, uint32_t val)
{
    check(vgpu_mmio_write(V(g), off, 4, val));
}

static uint8_t *gpa_ptr(unsigned g, uint64_t gpa)
{
    return ptr(ram_pa(g) + gpa);
}

/* A page of the guest's RAM for its driver's use, zeroed as its kernel hands pages out. */
static uint64_t ram_page(unsigned g)
{
    uint64_t gpa = m.g[g].gpa_next;
    m.g[g].gpa_next += 4096;
    memset(gpa_ptr(g, gpa), 0, 4096);
    return gpa;
}

/* n pages of graphics memory in the guest's low window, backed by fresh RAM pages. */
static uint64_t gm_alloc(unsigned g, unsigned pages, uint64_t *gpa_out)
{
    uint64_t gm = m.g[g].gm, gpa = m.g[g].gpa_next;
    memset(gpa_ptr(g, gpa), 0, 4096ull * pages);
    for (unsigned i = 0; i < pages; i++)
        check(vgpu_mmio_write(V(g), VGPU_GGTT_OFFSET + ((gm >> 12) + i) * 8, 8,
                              (gpa + 4096ull * i) | GEN9_GGTT_PTE_PRESENT));
    m.g[g].gm += 4096ull * pages;
    m.g[g].gpa_next += 4096ull * pages;
    if (gpa_out)
        *gpa_out = gpa;
    return gm;
}

/* Guest g's CPU writes 4 bytes at graphics address gm (through its own GGTT entry). */
/* The guest's CPU writes its RAM (within one page): a page the vGPU write-protects exits first
 * (the EPT violation the hypervisor hands to vgpu_table_write), then the write goes on. */
static void guest_write(unsigned g, uint64_t gpa, const void *src, size_t len)
{
    if (g == 0 && prot_find(gpa & ~4095ull) >= 0) {
        check(vgpu_table_write(V(0), gpa));
        check(prot_find(gpa & ~4095ull) < 0); /* given back: the write goes on */
    }
    memcpy(gpa_ptr(g, gpa), src, len);
}

static void gm_wr(unsigned g, uint64_t gm, uint32_t v)
{
    uint64_t pte = 0;
    gtt_guest_read(&m.gtt, g, (uint32_t)(gm >> 12), &pte);
    uint64_t gpa = (pte & GEN9_GGTT_PTE_ADDR_MASK) + (gm & 4095u);
    if (gpa + 4 <= RAM_BYTES)
        guest_write(g, gpa, &v, 4);
}

static void fill(unsigned g, uint64_t table, uint64_t entry)
{
    for (unsigned i = 0; i < 512; i++)
        memcpy(gpa_ptr(g, table + 8u * i), &entry, 8);
}

#define PDE(gpa) ((gpa) | GEN9_PPGTT_PRESENT | GEN9_PPGTT_RW)

static void pv_w32(unsigned g, uint32_t field, uint32_t val)
{
    w32(g, VGT_PVINFO_PAGE + field, val);
}

static void announce(uint64_t root, uint32_t what)
{
    pv_w32(0, offsetof(struct vgt_if, pdp[0].lo), (uint32_t)root);
    pv_w32(0, offsetof(struct vgt_if, pdp[0].hi), (uint32_t)(root >> 32));
    pv_w32(0, offsetof(struct vgt_if, g2v_notify), what);
}

static const enum igpu_engine eng[IGPU_NUM_GT_ENGINES] = { IGPU_RCS, IGPU_BCS, IGPU_VCS,
                                                           IGPU_VECS };

/* One entry of one of the i915 guest's page tables. */
static void put_entry(uint64_t table, unsigned index, uint64_t entry)
{
    memcpy(gpa_ptr(0, table + 8u * index), &entry, 8);
}

/* i915 6.1 at probe: interrupts, the kernel PPGTT (i915's scratch layout), a context, ring and
 * status page per engine, the engines resumed. */
static void setup_i915(void)
{
    struct guest *q = &m.g[0];
    const uint32_t irqs = GEN9_GT_CS_MASTER_ERROR | GEN9_GT_USER_INTERRUPT | GEN9_GT_CONTEXT_SWITCH;
    const uint32_t ier[4] = { irqs | irqs << 16, irqs, 0, irqs };
    w32(0, GEN9_MASTER_IRQ, 0);
    for (unsigned b = 0; b < 4; b++) {
        w32(0, GEN9_GT_IMR(b), ~0u);
        w32(0, GEN9_GT_IIR(b), ~0u);
        w32(0, GEN9_GT_IER(b), ier[b]);
        w32(0, GEN9_GT_IMR(b), ~ier[b]);
    }
    w32(0, GEN9_MASTER_IRQ, GEN9_MASTER_IRQ_CONTROL);

    uint64_t scratch = ram_page(0), spt = ram_page(0), spd = ram_page(0), spdp = ram_page(0);
    fill(0, spt, scratch | GEN9_PPGTT_PRESENT);
    fill(0, spd, PDE(spt));
    fill(0, spdp, PDE(spd));
    m.pml4 = ram_page(0);
    fill(0, m.pml4, PDE(spdp));
    uint64_t pdp = ram_page(0), pd = ram_page(0);
    m.pt = ram_page(0);
    fill(0, pdp, PDE(spd));
    fill(0, pd, PDE(spt));
    fill(0, m.pt, scratch | GEN9_PPGTT_PRESENT);
    m.va_data = VA;
    m.va_batch = VA + 0x1000;
    uint64_t data = ram_page(0), batch = m.pp_batch = ram_page(0);
    put_entry(m.pml4, gen9_ppgtt_index(VA, 3), PDE(pdp));
    put_entry(pdp, gen9_ppgtt_index(VA, 2), PDE(pd));
    put_entry(pd, gen9_ppgtt_index(VA, 1), PDE(m.pt));
    put_entry(m.pt, gen9_ppgtt_index(VA, 0), PDE(data));
    put_entry(m.pt, gen9_ppgtt_index(VA + 0x1000, 0), PDE(batch));
    announce(m.pml4, VGT_G2V_PPGTT_L4_PAGE_TABLE_CREATE);

    q->batch = gm_alloc(0, 1, NULL);
    q->data = gm_alloc(0, 1, NULL);
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++) {
        uint32_t b = igpu_engine_base(eng[e]);
        q->lrca[e] = gm_alloc(0, 2, NULL);
        q->ring[e] = gm_alloc(0, RING_PAGES, NULL);
        q->hwsp[e] = gm_alloc(0, 1, NULL);
        uint64_t st = q->lrca[e] + GEN9_LRC_STATE_OFFSET;
        gm_wr(0, st + 4u * GEN9_CTX_RING_START, (uint32_t)q->ring[e]);
        gm_wr(0, st + 4u * GEN9_CTX_RING_CTL, GEN9_RING_VALID | (RING_PAGES - 1u) << 12);
        gm_wr(0, st + 4u * GEN9_CTX_PDP0_UDW, (uint32_t)(m.pml4 >> 32));
        gm_wr(0, st + 4u * GEN9_CTX_PDP0_LDW, (uint32_t)m.pml4);
        w32(0, GEN9_RING_CSB_PTR(b), 0xFFFF0505);
        gm_wr(0, q->hwsp[e] + 4u * GEN9_HWS_CSB_WRITE_INDEX, 5);
        w32(0, GEN9_RING_HWSTAM(b), ~0u);
        w32(0, GEN9_RING_MODE(b), GEN9_MASKED_BIT_ENABLE(GEN9_GFX_RUN_LIST_ENABLE));
        w32(0, GEN9_RING_MI_MODE(b), GEN9_MASKED_BIT_DISABLE(GEN9_MI_MODE_STOP_RING));
        w32(0, GEN9_RING_HWS_PGA(b), (uint32_t)q->hwsp[e]);
        uint32_t shift = eng[e] == IGPU_BCS ? 16 : 0;
        w32(0, GEN9_RING_IMR(b),
            ~((GEN9_GT_USER_INTERRUPT | GEN9_GT_CONTEXT_SWITCH | GEN9_GT_CS_MASTER_ERROR)
              << shift));
    }
}

/* Tessera's guest library at start: its blitter context, ring and status page. */
static void setup_kiosk(void)
{
    struct guest *q = &m.g[1];
    uint32_t st[1024];
    q->lrca[IGPU_BCS] = gm_alloc(1, 2, NULL);
    q->ring[IGPU_BCS] = gm_alloc(1, 1, NULL);
    q->batch = gm_alloc(1, 1, NULL);
    q->data = gm_alloc(1, 2, NULL);
    q->hwsp[IGPU_BCS] = gm_alloc(1, 1, NULL);
    check(igpu_lrc_init_state(st, 1024, IGPU_BCS, NULL, (uint32_t)q->ring[IGPU_BCS], 4096, 0, 0) ==
          0);
    for (unsigned i = 0; i < 1024; i++)
        gm_wr(1, q->lrca[IGPU_BCS] + 4096 + 4 * i, st[i]);
    w32(1, GEN9_RING_HWS_PGA(GEN9_BCS_BASE), (uint32_t)q->hwsp[IGPU_BCS]);
}

/* ---- the hostile guest's operations ---------------------------------------------------------- */

static unsigned H(void)
{
    return m.hostile;
}

/* A BAR0 register offset: one the vGPU decodes specially, or anywhere in the register half. */
static uint32_t pick_reg(struct cursor *c)
{
    static const uint32_t fixed[] = {
        GEN9_MASTER_IRQ,   GEN9_GT_IIR(0),     GEN9_GT_IMR(1),       GEN9_GT_IER(3),
        GEN9_GDRST,        GEN9_PCODE_MAILBOX, GEN9_FENCE_REG_LO(0), GEN9_FENCE_REG_LO(31) + 4,
        GEN9_FORCEWAKE_GT, GEN9_CTC_MODE,      GEN9_FPGA_DBG,        GEN9_HSW_PWR_WELL_CTL2,
    };
    static const uint32_t per_engine[] = {
        0x230 /* ELSP */,
        0x234,
        0x238,
        0x3A0 /* CSB_PTR */,
        0x370,
        0x080 /* HWS_PGA */,
        0x09C /* MI_MODE */,
        0x0D0 /* RESET_CTL */,
        0x0A8 /* IMR */,
        0x0B0 /* EIR */,
        0x358 /* TIMESTAMP */,
        0x4D0 /* NONPRIV */,
        0x600 /* GPR */,
        0x29C /* MODE */,
    };
    unsigned k = (unsigned)take(c, 1);
    if (k < 64)
        return fixed[k % (sizeof fixed / sizeof fixed[0])];
    if (k < 192)
        return igpu_engine_base((enum igpu_engine)(k % 4u)) +
               per_engine[(k / 4u) % (sizeof per_engine / sizeof per_engine[0])];
    if (k < 224)
        return VGT_PVINFO_PAGE + 4u * (uint32_t)(take(c, 2) % 1024u);
    return (uint32_t)take(c, 3) % VGPU_MMIO_SIZE;
}

static void bar0_access(struct cursor *c, bool write)
{
    static const unsigned sizes[4] = { 1, 2, 4, 8 };
    unsigned k = (unsigned)take(c, 1), size = sizes[k & 3u];
    uint64_t off = pick_reg(c), val = take(c, 8);
    if (k & 4u)
        off += (k >> 3) & 7u; /* misaligned, sometimes */
    if (k & 0x80u)
        off = VGPU_GGTT_OFFSET + (take(c, 3) << 3) % (VGPU_BAR0_SIZE - VGPU_GGTT_OFFSET);
    bool ok = write ? vgpu_mmio_write(V(H()), off, size, val)
                    : vgpu_mmio_read(V(H()), off, size, &val);
    if (off & (size - 1u))
        check(!ok);
}

/* A descriptor of one of its contexts (or anything), as i915 or the guest library makes it. */
static uint64_t pick_desc(struct cursor *c, unsigned e)
{
    unsigned k = (unsigned)take(c, 1);
    const struct guest *q = &m.g[H()];
    if (k >= 224)
        return take(c, 8);
    if (H() == 1)
        return gen9_ctx_desc((uint32_t)q->lrca[IGPU_BCS], 1u + (k & 1u),
                             GEN9_CTX_ADDR_LEGACY_32B << GEN9_CTX_ADDRESSING_MODE_SHIFT);
    uint64_t d = gen9_ctx_desc((uint32_t)q->lrca[(e + (k >> 6)) % IGPU_NUM_GT_ENGINES],
                               0x10 + (k & 3u),
                               GEN9_CTX_ADDR_LEGACY_64B << GEN9_CTX_ADDRESSING_MODE_SHIFT |
                                   GEN9_CTX_PRIVILEGE);
    return (k & 0x20u) ? d & ~GEN9_CTX_VALID : d;
}

static unsigned pick_engine(struct cursor *c)
{
    return H() == 1 ? 1u : (unsigned)take(c, 1) % IGPU_NUM_GT_ENGINES;
}

static void elsp(unsigned e, uint64_t d0, uint64_t d1)
{
    uint32_t reg = GEN9_RING_ELSP(igpu_engine_base(eng[e]));
    w32(H(), reg, (uint32_t)(d1 >> 32));
    w32(H(), reg, (uint32_t)d1);
    w32(H(), reg, (uint32_t)(d0 >> 32));
    w32(H(), reg, (uint32_t)d0);
}

static void emit(unsigned e, uint32_t dw)
{
    struct guest *q = &m.g[H()];
    uint32_t size = (H() == 1 ? 1u : RING_PAGES) * 4096u;
    gm_wr(H(), q->ring[e] + q->tail[e], dw);
    q->tail[e] = (q->tail[e] + 4u) % size;
}

/* A graphics address the commands may name: its batch or data page, its PPGTT pages, its
 * status page, a context, or anything. */
static uint64_t pick_addr(struct cursor *c)
{
    const struct guest *q = &m.g[H()];
    unsigned k = (unsigned)take(c, 1);
    uint64_t off = 8u * (take(c, 1) % 64u);
    switch (k % 8u) {
    case 0:
        return q->batch + off;
    case 1:
        return q->data + off;
    case 2:
        return m.va_data + off;
    case 3:
        return m.va_batch + off;
    case 4:
        return q->hwsp[k / 8u % IGPU_NUM_GT_ENGINES] + off;
    case 5:
        return q->lrca[k / 8u % IGPU_NUM_GT_ENGINES] + off;
    default:
        return take(c, 6);
    }
}

/* One command, from a template with fields from the input, or raw dwords. */
static void emit_command(struct cursor *c, unsigned e, uint32_t *out, unsigned *n)
{
    unsigned k = (unsigned)take(c, 1);
    uint64_t a = pick_addr(c);
    uint32_t lo = (uint32_t)a, hi = (uint32_t)(a >> 32), v = (uint32_t)take(c, 4);
    uint32_t base = igpu_engine_base(eng[e]);
    unsigned i = 0;
#define PUT(x) (out[i++] = (x))
    switch (k % 12u) {
    case 0:
        PUT(GEN9_MI_STORE_DATA_IMM | (k & 0x10u ? GEN9_MI_SDI_USE_GGTT : 0));
        PUT(lo);
        PUT(hi);
        PUT(v);
        break;
    case 1:
        PUT(GEN9_MI_BATCH_BUFFER_START | (k & 0x10u ? GEN9_MI_BB_START_PPGTT : 0) |
            (k & 0x20u ? GEN9_MI_BB_START_SECOND_LEVEL : 0));
        PUT(lo);
        PUT(hi);
        break;
    case 2:
        PUT(GEN9_MI_BATCH_BUFFER_END);
        break;
    case 3:
        PUT(GEN9_MI_LOAD_REGISTER_IMM(1));
        PUT(k & 0x10u ? GEN9_RING_CS_GPR(base, v % 16u) : v & 0x7FFFFCu);
        PUT(v);
        break;
    case 4:
        PUT(GEN9_MI_STORE_REGISTER_MEM | (k & 0x10u ? GEN9_MI_SRM_USE_GGTT : 0));
        PUT(GEN9_RING_CS_GPR(base, v % 16u));
        PUT(lo);
        PUT(hi);
        break;
    case 5:
        PUT(GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_OP_STOREDW |
            (k & 0x10u ? GEN9_MI_FLUSH_DW_NOTIFY : 0));
        PUT(lo | (k & 0x20u ? GEN9_MI_FLUSH_DW_USE_GTT : 0));
        PUT(hi);
        PUT(v);
        break;
    case 6:
        PUT(GEN9_PIPE_CONTROL);
        PUT(GEN9_PIPE_CONTROL_WRITE_IMMEDIATE | (k & 0x10u ? GEN9_PIPE_CONTROL_GLOBAL_GTT : 0) |
            (k & 0x20u ? GEN9_PIPE_CONTROL_NOTIFY : 0));
        PUT(lo);
        PUT(hi);
        PUT(v);
        PUT(0);
        break;
    case 7:
        PUT(GEN9_MI_USER_INTERRUPT);
        break;
    case 8:
        PUT(GEN9_XY_COLOR_BLT);
        PUT(GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) | (v & 0x3FFCu));
        PUT(GEN9_BLT_COORD(0, 0));
        PUT(GEN9_BLT_COORD(1u + (v >> 16) % 64u, 1u + (v >> 24) % 8u));
        PUT(lo);
        PUT(hi);
        PUT(v);
        break;
    case 9:
        PUT(GEN9_MI_ARB_ON_OFF | (k & 0x10u ? GEN9_MI_ARB_ENABLE : 0));
        PUT(GEN9_MI_ARB_CHECK);
        break;
    default:
        PUT(v);
        PUT((uint32_t)take(c, 4));
        break;
    }
#undef PUT
    *n = i;
}

/* A request: commands into the engine's ring (and some into its batch pages), the tail into
 * the context image, the ELSP write. */
static void request(struct cursor *c)
{
    unsigned e = pick_engine(c), n = (unsigned)take(c, 1) % 8u, where = (unsigned)take(c, 1);
    struct guest *q = &m.g[H()];
    uint32_t dw[8];
    for (unsigned i = 0; i < n; i++) {
        unsigned len;
        emit_command(c, e, dw, &len);
        for (unsigned k = 0; k < len; k++) {
            if (where & (1u << i)) { /* into a batch page instead */
                uint64_t off = 4u * (take(c, 1) % 1024u);
                if (H() == 0 && (where & 0x40u))
                    guest_write(0, m.pp_batch + off, &dw[k], 4); /* its PPGTT batch page */
                else
                    gm_wr(H(), q->batch + off, dw[k]);
            } else {
                emit(e, dw[k]);
            }
        }
    }
    if (q->tail[e] & 7u)
        emit(e, GEN9_MI_NOOP);
    gm_wr(H(), q->lrca[e] + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_RING_TAIL, q->tail[e]);
    elsp(e, pick_desc(c, e), (where & 0x80u) ? pick_desc(c, e) : 0);
}

/* The other guest does what its driver does: a fill or a store into its own pages and a user
 * interrupt on one of its engines (the GPU switches between the two guests' work). */
static void benign_request(unsigned e, uint32_t v)
{
    const struct guest *q = &m.g[H()];
    if (eng[e] == IGPU_BCS) {
        const uint32_t fill[] = { GEN9_XY_COLOR_BLT,
                                  GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) | 256u,
                                  GEN9_BLT_COORD(0, 0),
                                  GEN9_BLT_COORD(64, 8),
                                  (uint32_t)q->data,
                                  0,
                                  v };
        for (unsigned i = 0; i < sizeof fill / 4u; i++)
            emit(e, fill[i]);
    } else {
        const uint32_t store[] = { GEN9_MI_STORE_DATA_IMM, (uint32_t)m.va_data,
                                   (uint32_t)(m.va_data >> 32), v };
        for (unsigned i = 0; i < sizeof store / 4u; i++)
            emit(e, store[i]);
    }
    emit(e, GEN9_MI_USER_INTERRUPT);
    if (q->tail[e] & 7u)
        emit(e, GEN9_MI_NOOP);
    gm_wr(H(), q->lrca[e] + GEN9_LRC_STATE_OFFSET + 4u * GEN9_CTX_RING_TAIL, q->tail[e]);
    uint64_t d = H() == 1
                   ? gen9_ctx_desc((uint32_t)q->lrca[e], 1,
                                   GEN9_CTX_ADDR_LEGACY_32B << GEN9_CTX_ADDRESSING_MODE_SHIFT)
                   : gen9_ctx_desc((uint32_t)q->lrca[e], 0x10 + e,
                                   GEN9_CTX_ADDR_LEGACY_64B << GEN9_CTX_ADDRESSING_MODE_SHIFT |
                                       GEN9_CTX_PRIVILEGE);
    elsp(e, d, 0);
}

/* The guest's CPU writes its RAM: a protected page exits first (the EPT), then the write. */
static void cpu_write(struct cursor *c)
{
    unsigned k = (unsigned)take(c, 1);
    uint64_t gpa = (RAM_FIRST + 4096u * (take(c, 1) % 48u) + 8u * (take(c, 2) % 512u)) % RAM_BYTES;
    uint64_t v;
    if (k & 1u) {
        uint64_t page = RAM_FIRST + 4096u * (take(c, 1) % 48u);
        v = page | (take(c, 2) & 0x8FFFu);
    } else {
        v = take(c, 8);
    }
    unsigned len = (k & 2u) ? 4096u : 8u;
    if (len == 4096u)
        gpa &= ~4095ull;
    for (unsigned i = 0; i < len; i += 8)
        guest_write(H(), gpa + i, &v, 8);
}

static void ggtt_entry(struct cursor *c)
{
    const struct gtt_guest_layout *gl = &m.layout.guest[H()];
    unsigned k = (unsigned)take(c, 1);
    uint64_t index = k & 1u ? (gl->low.start >> 12) + take(c, 2) % (gl->low.size >> 12)
                            : take(c, 3) % (GGTT_ENTRIES * 2u);
    uint64_t pte = k & 2u ? (RAM_FIRST + 4096u * (take(c, 1) % 64u)) | GEN9_GGTT_PTE_PRESENT
                          : take(c, 8);
    if (k & 4u) {
        vgpu_mmio_write(V(H()), VGPU_GGTT_OFFSET + index * 8u, 4, (uint32_t)pte);
        vgpu_mmio_write(V(H()), VGPU_GGTT_OFFSET + index * 8u + 4u, 4, (uint32_t)(pte >> 32));
    } else {
        vgpu_mmio_write(V(H()), VGPU_GGTT_OFFSET + index * 8u, 8, pte);
    }
}

static void pv_notify(struct cursor *c)
{
    unsigned k = (unsigned)take(c, 1);
    uint64_t root = k & 1u ? RAM_FIRST + 4096u * (take(c, 1) % 48u) : take(c, 8);
    uint32_t what;
    switch ((k >> 1) % 6u) {
    case 0:
        what = VGT_G2V_PPGTT_L4_PAGE_TABLE_CREATE;
        break;
    case 1:
        what = VGT_G2V_PPGTT_L4_PAGE_TABLE_DESTROY;
        break;
    case 2:
        pv_w32(H(), offsetof(struct vgt_if, tessera_balloon.request), (uint32_t)(int8_t)take(c, 1));
        what = TESSERA_G2V_BALLOON;
        break;
    case 3:
        pv_w32(H(), offsetof(struct vgt_if, tessera_move.caps), TESSERA_MOVE_CAP_FOLLOW);
        what = TESSERA_G2V_MOVE_READY;
        break;
    default:
        what = (uint32_t)take(c, 4);
        break;
    }
    pv_w32(H(), offsetof(struct vgt_if, pdp[0].lo), (uint32_t)root);
    pv_w32(H(), offsetof(struct vgt_if, pdp[0].hi), (uint32_t)(root >> 32));
    pv_w32(H(), offsetof(struct vgt_if, g2v_notify), what);
}

/* ---- the run -------------------------------------------------------------------------------- */

/* The other guest's RAM outside the pages its setup took holds the canary still. */
static void check_canary(unsigned g)
{
    uint64_t used = m.g[g].gpa_next;
    check(!memcmp(gpa_ptr(g, 0), canary[g], RAM_FIRST));
    check(!memcmp(gpa_ptr(g, used), canary[g] + used, RAM_BYTES - used));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cursor c = { data, size };

    if (!arena) {
        arena = aligned_alloc(4096, A_END);
        check(arena != NULL);
        memset(poison_page, POISON, sizeof poison_page);
        for (unsigned g = 0; g < NG; g++)
            memset(canary[g], 0x5A ^ g, RAM_BYTES);
    }
    memset(arena, 0, A_RAM);
    for (unsigned g = 0; g < NG; g++)
        memcpy(arena + A_RAM + g * RAM_BYTES, canary[g], RAM_BYTES);
    memset(arena + A_POOL, POISON, POOL_PAGES * 4096u);
    memset(pool_used, 0, sizeof pool_used);
    pool_live = 0;
    memset(&m, 0, sizeof m);
    for (unsigned g = 0; g < NG; g++)
        m.g[g].gpa_next = RAM_FIRST;

    build();
    for (unsigned g = 0; g < NG; g++)
        m.g[g].gm = m.layout.guest[g].low.start;
    setup_i915();
    setup_kiosk();
    unsigned flags = (unsigned)take(&c, 1);
    m.hostile = flags & 1u;
    m.msi_ok = !(flags & 2u);
    m.wanted = flags & 4u;
    unsigned other = 1u - m.hostile;

    unsigned steps = 0;
    while (c.n) {
        unsigned op = (unsigned)take(&c, 1);
        bool rendered = false;
        switch (op % 16u) {
        case 0:
        case 1:
            bar0_access(&c, true);
            break;
        case 2:
            bar0_access(&c, false);
            break;
        case 3:
        case 4:
            request(&c);
            break;
        case 5: {
            unsigned e = pick_engine(&c);
            elsp(e, pick_desc(&c, e), pick_desc(&c, e));
            break;
        }
        case 6:
            ggtt_entry(&c);
            break;
        case 7:
            pv_notify(&c);
            break;
        case 8:
        case 9:
            cpu_write(&c);
            break;
        case 10: { /* the render loop runs a little */
            unsigned n = 1u + (unsigned)take(&c, 1) % 16u;
            for (unsigned i = 0; i < n && steps < 256u; i++, steps++)
                vgpu_render_step(m.dev);
            rendered = true;
            break;
        }
        case 11: { /* the CPU through the aperture */
            uint64_t off = m.layout.guest[H()].low.start + take(&c, 3) % (2u << 20),
                     v = take(&c, 8);
            unsigned sz = 1u << (take(&c, 1) & 3u);
            if (op & 0x10u)
                vgpu_aperture_write(V(H()), off, sz, v);
            else
                vgpu_aperture_read(V(H()), off, sz, &v);
            rendered = true; /* fenced copies go through the GPU's view */
            break;
        }
        case 12: /* a fence register, and its work */
            vgpu_mmio_write(V(H()), GEN9_FENCE_REG_LO(take(&c, 1) % 32u), 8, take(&c, 8));
            vgpu_dev_fence_work(m.dev, VGPU_FENCE_POLL_PAGES);
            rendered = true;
            break;
        case 13: { /* the hypervisor's periods */
            struct gtt_ctl_params p;
            struct gtt_ctl_report rep;
            gtt_ctl_defaults(&p);
            if (op & 0x10u)
                vgpu_place_period(m.dev);
            else
                vgpu_balloon_period(m.dev, &p, (uint32_t)take(&c, 2) * 16u,
                                    (uint32_t)take(&c, 2) * 16u, &rep);
            rendered = true;
            break;
        }
        case 14: /* engine resets: the guest's or the operator's */
            if (op & 0x10u)
                w32(H(), GEN9_GDRST, (uint32_t)take(&c, 1));
            else
                vgpu_reset(m.dev, H(), "fuzz");
            rendered = true;
            break;
        default:
            if ((op & 0xF0u) == 0xF0u) { /* the guest restarts */
                vgpu_guest_reset(V(H()));
                rendered = true;
            } else if ((op & 0xF0u) == 0xE0u) { /* the other guest works too */
                unsigned e = other == 1 ? 1u : (unsigned)take(&c, 1) % IGPU_NUM_GT_ENGINES;
                m.hostile = other;
                benign_request(e, (uint32_t)take(&c, 4));
                m.hostile = 1u - other;
            } else {
                bar0_access(&c, true);
            }
            break;
        }
        check_protected(rendered);
    }
    /* Let the queued work drain, then check the other guest and tear down. */
    for (unsigned i = 0; i < 64 && vgpu_render_step(m.dev); i++)
        ;
    check_canary(other);
    teardown();
    return 0;
}
