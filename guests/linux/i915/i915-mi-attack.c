/* i915-mi-attack: what a hostile guest kernel can do to the vGPU's MI-only engines (RCS, VCS,
 * VECS run on the hypervisor's CPU), for tools/bench-isolation's i915 attacks.  Root, with i915
 * NOT loaded: the program drives the vGPU itself through BAR0 (sysfs resource0), as a small
 * driver would: its own GGTT entries in the low range avail_rs gives it, a 4-level PPGTT
 * announced through the PV info page (a context must name one), one context, ring and status
 * page per engine, ELSP writes.
 *
 *   i915-mi-attack loop ENGINE...   a batch that starts itself (MI_ARB_CHECK, then
 *                                   MI_BATCH_BUFFER_START of itself through the PPGTT) on each
 *                                   engine named (rcs, vcs, vecs), until SIGINT or SIGTERM; then
 *                                   its CPU writes MI_BATCH_BUFFER_END over the loop and it
 *                                   waits for the engines to complete
 *   i915-mi-attack lri-chain ENGINE [CALLS]
 *                                   one element whose batch calls CALLS (1..1024, default 1024)
 *                                   second-level batches of three register loads of 128
 *                                   registers each (384 loads a call: 393,216 for 1024),
 *                                   submitted again as soon as it completes, until a signal
 *
 *   i915-mi-attack: loop started on <engines>
 *   i915-mi-attack: lri-chain of <n> calls (<n> register loads) started on <engine>
 *   i915-mi-attack: t <s> submitted <n> completed <n>       every second
 *   i915-mi-attack: ended: <engine> completed|not completed ...
 *
 * Exit 0 when every engine completed at the end, 1 on any failure (said on one line), 2 for bad
 * arguments.  Built static (no libraries) with the build machine's gcc. */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"
#include "include/tessera/abi/vgpu.h"

#define ME          "i915-mi-attack"
#define PCI_DEV     "/sys/bus/pci/devices/0000:00:02.0"
#define BAR0_BYTES  (16u << 20)
#define GGTT_OFFSET (8u << 20) /* Gen9: the GGTT's entries from BAR0 + 8 MiB */
#define PAGE        4096u
#define POOL_PAGES  64u
#define VA_BATCH    0x100000ull /* user batches in the PPGTT */
#define CHAIN_CALLS 1024u
#define CHAIN_LRIS  3u
#define LRI_REGS    128u /* the most one MI_LOAD_REGISTER_IMM holds */
#define MAX_ENGINES 3u

static volatile uint8_t *bar0;
static volatile sig_atomic_t stop;

struct page {
    void *va;
    uint64_t pa;
};
static struct page pool[POOL_PAGES];
static unsigned pool_used;

struct engine {
    const char *name;
    uint32_t base, reset_domain;
    uint64_t lrca, ring, hwsp; /* graphics addresses (GGTT) */
    uint32_t *ring_va, *state_va;
    uint32_t tail;
    uint64_t submitted, completed;
};

static void ppgtt_forget(void);

static int die(const char *fmt, ...)
{
    va_list ap;
    ppgtt_forget();
    va_start(ap, fmt);
    fputs(ME ": FAIL: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    exit(1);
}

static uint32_t rd32(uint32_t off)
{
    return *(volatile uint32_t *)(bar0 + off);
}
static void wr32(uint32_t off, uint32_t v)
{
    *(volatile uint32_t *)(bar0 + off) = v;
}
static void wr64(uint32_t off, uint64_t v)
{
    *(volatile uint64_t *)(bar0 + off) = v;
}

/* Locked pages of our own and their physical addresses (/proc/self/pagemap, root only). */
static void pool_init(void)
{
    uint8_t *mem = mmap(NULL, POOL_PAGES * PAGE, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_LOCKED, -1, 0);
    if (mem == MAP_FAILED)
        die("no locked memory: %s", strerror(errno));
    int fd = open("/proc/self/pagemap", O_RDONLY);
    if (fd < 0)
        die("/proc/self/pagemap: %s", strerror(errno));
    for (unsigned i = 0; i < POOL_PAGES; i++) {
        uint64_t e;
        memset(mem + (size_t)i * PAGE, 0, PAGE);
        if (pread(fd, &e, 8, (off_t)(((uintptr_t)mem / PAGE + i) * 8)) != 8 || !(e >> 63) ||
            !(e & ((1ull << 55) - 1)))
            die("no physical address for a page (not root?)");
        pool[i] = (struct page){ mem + (size_t)i * PAGE, (e & ((1ull << 55) - 1)) * PAGE };
    }
    close(fd);
}

static struct page *take(void)
{
    if (pool_used == POOL_PAGES)
        die("out of pages");
    return &pool[pool_used++];
}

/* A page of ours at the next graphics address of our low range (the GGTT entry written). */
static uint64_t gm_next;
static struct page *gm_page(uint64_t *gm)
{
    struct page *p = take();
    *gm = gm_next;
    wr64(GGTT_OFFSET + (uint32_t)(gm_next / PAGE) * 8u, gen9_ggtt_pte_encode(p->pa));
    gm_next += PAGE;
    return p;
}

/* The PPGTT: one table per level, VA_BATCH.. mapped to batch pages.  Announced to the vGPU
 * (which then write-protects the tables: they are not written again). */
static uint64_t pml4_pa;
static uint64_t *pt_va;
static unsigned batch_pages;

static uint32_t *batch_page(unsigned i, uint64_t *va)
{
    struct page *p = take();
    pt_va[gen9_ppgtt_index(VA_BATCH, 0) + i] = p->pa | GEN9_PPGTT_PRESENT | GEN9_PPGTT_RW;
    *va = VA_BATCH + (uint64_t)i * PAGE;
    batch_pages++;
    return p->va;
}

static void ppgtt_build(void)
{
    struct page *pml4 = take(), *pdp = take(), *pd = take(), *pt = take();
    ((uint64_t *)pml4->va)[gen9_ppgtt_index(VA_BATCH, 3)] = pdp->pa | GEN9_PPGTT_PRESENT |
                                                            GEN9_PPGTT_RW;
    ((uint64_t *)pdp->va)[gen9_ppgtt_index(VA_BATCH, 2)] = pd->pa | GEN9_PPGTT_PRESENT |
                                                           GEN9_PPGTT_RW;
    ((uint64_t *)pd->va)[gen9_ppgtt_index(VA_BATCH, 1)] = pt->pa | GEN9_PPGTT_PRESENT |
                                                          GEN9_PPGTT_RW;
    pml4_pa = pml4->pa;
    pt_va = pt->va;
}

static bool announced;

static void ppgtt_notify(uint32_t what)
{
    wr32(VGT_PVINFO_PAGE + (uint32_t)offsetof(struct vgt_if, pdp[0].lo), (uint32_t)pml4_pa);
    wr32(VGT_PVINFO_PAGE + (uint32_t)offsetof(struct vgt_if, pdp[0].hi), (uint32_t)(pml4_pa >> 32));
    wr32(VGT_PVINFO_PAGE + (uint32_t)offsetof(struct vgt_if, g2v_notify), what);
}

static void ppgtt_announce(void)
{
    ppgtt_notify(VGT_G2V_PPGTT_L4_PAGE_TABLE_CREATE);
    announced = true;
}

/* Before the process's pages go back to the kernel, as i915 does when it frees a PPGTT: a table
 * the vGPU still shadowed would stay write-protected and be read as a table while the kernel
 * reuses the page for anything (each of its writes a trapped, refused table write). */
static void ppgtt_forget(void)
{
    if (announced)
        ppgtt_notify(VGT_G2V_PPGTT_L4_PAGE_TABLE_DESTROY);
    announced = false;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* i915's engine reset (gt/intel_reset.c gen8_engine_reset_prepare(), gen6_hw_domain_reset()):
 * request it, wait until the engine is ready, pulse its GDRST domain, let the request go.  An
 * engine a watchdog reset of an earlier run left hung works again. */
static void engine_reset(const struct engine *e)
{
    double give_up = now_s() + 5;
    wr32(GEN9_RING_RESET_CTL(e->base), GEN9_MASKED_BIT_ENABLE(GEN9_RESET_CTL_REQUEST_RESET));
    while (!(rd32(GEN9_RING_RESET_CTL(e->base)) & GEN9_RESET_CTL_READY_TO_RESET))
        if (now_s() > give_up)
            die("%s: not ready to reset", e->name);
    wr32(GEN9_GDRST, e->reset_domain);
    while (rd32(GEN9_GDRST) & e->reset_domain)
        if (now_s() > give_up)
            die("%s: GDRST did not complete", e->name);
    wr32(GEN9_RING_RESET_CTL(e->base), GEN9_MASKED_BIT_DISABLE(GEN9_RESET_CTL_REQUEST_RESET));
}

/* A context (status page + register state), a one-page ring and a status page; execlists on. */
static void engine_init(struct engine *e)
{
    engine_reset(e);
    gm_page(&e->lrca);
    e->state_va = gm_page(&(uint64_t){ 0 })->va;
    e->ring_va = gm_page(&e->ring)->va;
    gm_page(&e->hwsp);
    e->state_va[GEN9_CTX_RING_START] = (uint32_t)e->ring;
    e->state_va[GEN9_CTX_RING_CTL] = GEN9_RING_VALID; /* one page */
    e->state_va[GEN9_CTX_PDP0_UDW] = (uint32_t)(pml4_pa >> 32);
    e->state_va[GEN9_CTX_PDP0_LDW] = (uint32_t)pml4_pa;
    wr32(GEN9_RING_HWS_PGA(e->base), (uint32_t)e->hwsp);
    wr32(GEN9_RING_MODE(e->base), GEN9_MASKED_BIT_ENABLE(GEN9_GFX_RUN_LIST_ENABLE));
    wr32(GEN9_RING_MI_MODE(e->base), GEN9_MASKED_BIT_DISABLE(GEN9_MI_MODE_STOP_RING));
}

static void emit(struct engine *e, uint32_t dw)
{
    e->ring_va[e->tail / 4u] = dw;
    e->tail = (e->tail + 4u) % PAGE;
}

/* A request: the user batch at va, then the ELSP write of the context. */
static void submit(struct engine *e, uint64_t va)
{
    emit(e, GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT);
    emit(e, (uint32_t)va);
    emit(e, (uint32_t)(va >> 32));
    emit(e, GEN9_MI_NOOP);
    e->state_va[GEN9_CTX_RING_TAIL] = e->tail;
    __sync_synchronize();
    uint64_t d = gen9_ctx_desc((uint32_t)e->lrca, 1,
                               GEN9_CTX_ADDR_LEGACY_64B << GEN9_CTX_ADDRESSING_MODE_SHIFT |
                                   GEN9_CTX_PRIVILEGE);
    wr32(GEN9_RING_ELSP(e->base), 0);
    wr32(GEN9_RING_ELSP(e->base), 0);
    wr32(GEN9_RING_ELSP(e->base), (uint32_t)(d >> 32));
    wr32(GEN9_RING_ELSP(e->base), (uint32_t)d);
    e->submitted++;
}

/* The vGPU writes RING_HEAD into the image when the element completes. */
static int done(const struct engine *e)
{
    return (e->state_va[GEN9_CTX_RING_HEAD] & GEN9_HEAD_ADDR) == e->tail;
}

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static const struct {
    const char *name;
    uint32_t base, reset_domain;
} engines[] = {
    { "rcs", GEN9_RCS_BASE, GEN9_GRDOM_RENDER },
    { "vcs", GEN9_VCS_BASE, GEN9_GRDOM_MEDIA },
    { "vecs", GEN9_VECS_BASE, GEN9_GRDOM_VECS },
};

int main(int argc, char **argv)
{
    struct engine e[MAX_ENGINES];
    unsigned n = 0;
    int chain = argc >= 2 && !strcmp(argv[1], "lri-chain");
    unsigned calls = CHAIN_CALLS;
    char *end = NULL;
    if (chain && argc == 4) {
        unsigned long c = strtoul(argv[3], &end, 10);
        calls = *end || !c || c > CHAIN_CALLS ? 0 : (unsigned)c;
    }
    if (argc < 3 || (!chain && strcmp(argv[1], "loop")) || (chain && (argc > 4 || !calls))) {
        fprintf(stderr,
                "usage: " ME " loop ENGINE... | " ME
                " lri-chain ENGINE [CALLS]  (rcs vcs vecs; CALLS 1..%u)\n",
                CHAIN_CALLS);
        return 2;
    }
    for (int a = 2; a < (chain ? 3 : argc); a++) {
        unsigned k = 0;
        while (k < 3 && strcmp(argv[a], engines[k].name))
            k++;
        if (k == 3 || n == MAX_ENGINES) {
            fprintf(stderr, ME ": unknown engine '%s' (rcs vcs vecs)\n", argv[a]);
            return 2;
        }
        memset(&e[n], 0, sizeof e[n]);
        e[n].name = engines[k].name;
        e[n].reset_domain = engines[k].reset_domain;
        e[n++].base = engines[k].base;
    }
    if (access(PCI_DEV "/driver", F_OK) == 0)
        die("a driver is bound to " PCI_DEV " (unload i915 first)");
    int en = open(PCI_DEV "/enable", O_WRONLY);
    if (en >= 0) {
        if (write(en, "1", 1) != 1)
            fprintf(stderr, ME ": %s/enable: %s\n", PCI_DEV, strerror(errno));
        close(en);
    }
    int fd = open(PCI_DEV "/resource0", O_RDWR | O_SYNC);
    if (fd < 0)
        die(PCI_DEV "/resource0: %s", strerror(errno));
    bar0 = mmap(NULL, BAR0_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (bar0 == MAP_FAILED)
        die("mmap of BAR0: %s", strerror(errno));
    uint64_t magic = (uint64_t)rd32(VGT_PVINFO_PAGE + 4) << 32 | rd32(VGT_PVINFO_PAGE);
    if (magic != VGT_MAGIC)
        die("no vGPU PV info page in BAR0 (magic %#llx)", (unsigned long long)magic);
    gm_next = rd32(VGT_PVINFO_PAGE +
                   (uint32_t)offsetof(struct vgt_if, avail_rs.mappable_gmadr.base));
    pool_init();
    ppgtt_build();

    uint64_t va_top, va_leaf;
    uint32_t *top = batch_page(0, &va_top);
    if (!chain) {
        /* The spinner: its first dword becomes MI_BATCH_BUFFER_END when we stop. */
        top[0] = GEN9_MI_ARB_CHECK;
        top[1] = GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT;
        top[2] = (uint32_t)va_top;
        top[3] = (uint32_t)(va_top >> 32);
    } else {
        /* The calls span three more pages; the leaf is the fifth. */
        uint32_t *pages[4] = { top };
        uint64_t va;
        for (unsigned i = 1; i < 4; i++)
            pages[i] = batch_page(i, &va);
        uint32_t *leaf = batch_page(4, &va_leaf);
        unsigned k = 0;
        for (unsigned i = 0; i < CHAIN_LRIS; i++) {
            leaf[k++] = GEN9_MI_LOAD_REGISTER_IMM(LRI_REGS);
            for (unsigned r = 0; r < LRI_REGS; r++) {
                leaf[k++] = GEN9_RING_CS_GPR(e[0].base, r % (2u * GEN9_CS_GPR_COUNT) / 2u) +
                            4u * (r % 2u);
                leaf[k++] = r;
            }
        }
        leaf[k++] = GEN9_MI_BATCH_BUFFER_END;
        for (unsigned i = 0, w = 0; i < calls; i++) {
            const uint32_t cmd[3] = { GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_PPGTT |
                                          GEN9_MI_BB_START_SECOND_LEVEL,
                                      (uint32_t)va_leaf, (uint32_t)(va_leaf >> 32) };
            for (unsigned j = 0; j < 3; j++, w++)
                pages[w / 1024u][w % 1024u] = cmd[j];
            if (i + 1 == calls)
                pages[(w) / 1024u][w % 1024u] = GEN9_MI_BATCH_BUFFER_END;
        }
    }
    ppgtt_announce();
    for (unsigned i = 0; i < n; i++)
        engine_init(&e[i]);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    if (chain)
        printf(ME ": lri-chain of %u calls (%u register loads) started on", calls,
               calls * CHAIN_LRIS * LRI_REGS);
    else
        printf(ME ": loop started on");
    for (unsigned i = 0; i < n; i++)
        printf(" %s", e[i].name);
    printf("\n");
    fflush(stdout);
    for (unsigned i = 0; i < n; i++)
        submit(&e[i], va_top);
    double t0 = now_s(), next = t0 + 1;
    while (!stop) {
        usleep(chain ? 1000 : 100000);
        for (unsigned i = 0; chain && i < n; i++) {
            if (done(&e[i])) {
                e[i].completed++;
                submit(&e[i], va_top);
            }
        }
        if (now_s() >= next) {
            uint64_t s = 0, c = 0;
            for (unsigned i = 0; i < n; i++) {
                s += e[i].submitted;
                c += e[i].completed;
            }
            printf(ME ": t %.0f submitted %llu completed %llu\n", now_s() - t0,
                   (unsigned long long)s, (unsigned long long)c);
            fflush(stdout);
            next += 1;
        }
    }
    if (!chain)
        top[0] = GEN9_MI_BATCH_BUFFER_END; /* the CPU ends the spinners */
    __sync_synchronize();
    int ok = 1;
    double give_up = now_s() + 30;
    for (unsigned i = 0; i < n; i++) {
        while (!done(&e[i]) && now_s() < give_up)
            usleep(10000);
        printf(ME ": ended: %s %s\n", e[i].name,
               done(&e[i]) ? "completed" : "not completed in 30 s");
        ok &= done(&e[i]);
        if (!done(&e[i]))
            engine_reset(&e[i]); /* nothing may still run through the tables */
    }
    ppgtt_forget();
    return ok ? 0 : 1;
}
