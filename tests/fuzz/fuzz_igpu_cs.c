/* Fuzzes the software command streamer (drivers/igpu/cs/) with hostile rings and batches: what
 * an i915 guest's render, video and video-enhancement engines execute in the vGPU's MMIO exit,
 * and what the model's engines run.  The input sets up the engine (any of the four, with the
 * i915 register allow-list or none, with or without a PPGTT), two small address spaces (GGTT
 * and PPGTT, pages present or not, writable or not), the RING_FORCE_TO_NONPRIV slots, and then
 * places chunks of bytes anywhere in them: the ring, batches, chained and second-level batches,
 * operands.  Each run:
 *   - never reaches memory except through the callback, one page at a time, and never writes
 *     a page that is not present and writable (the callback refuses those);
 *   - keeps the GPU's privilege rule: while a batch started through the PPGTT runs (and what
 *     it starts), nothing is fetched, read or written through the GGTT (no store, post-sync,
 *     status-page write, register load or store from it) and no register outside the engine's
 *     user-mode ones (GPRs, BCS_SWCTRL, what the slots name) is written;
 *   - writes and reads registers only inside the allow-list when there is one;
 *   - stops within its command budget, with the ring head inside the ring;
 *   - counts one interrupt event for every user interrupt and notify it reports;
 *   - ends the same whether it ran in one igpu_cs_run() or in igpu_cs_step() pieces of any
 *     size resumed one after the other, the caller's time running out anywhere (a register
 *     load stopped between its registers and resumed): the same memory, registers, fault, head
 *     and counts. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/igpu/cs/cs.h"
#include "drivers/igpu/gen9_regs.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_cursor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PAGES       8u /* each space: graphics addresses [0, 32 KiB) */
#define SPACE_BYTES (PAGES * 4096u)
#define MAX_REGS    64u
#define BUDGET      2048u /* commands per run */

/* Everything a run can change, so two runs can be compared. */
struct state {
    uint8_t mem[2][SPACE_BYTES];
    struct {
        uint32_t reg, val;
    } regs[MAX_REGS];
    unsigned n_regs;
    uint64_t ts;
    unsigned events, user_irqs, notifies, tlb;
};

static struct state st, init;
static uint8_t present[2][PAGES], writable[2][PAGES];
static struct igpu_cs cs; /* the engine a stepped run drives */
static struct igpu_cs_config cfg;
static bool stepping; /* callbacks come from a stepped run (cs is live) */
static uint32_t nonpriv[GEN9_RING_NONPRIV_SLOTS];

static bool privileged(void)
{
    return !stepping || igpu_cs_privileged(&cs);
}

static bool in_allow_list(uint32_t reg, uint32_t access)
{
    if (!cfg.regs)
        return true;
    for (size_t i = 0; i < cfg.n_regs; i++)
        if (reg >= cfg.regs[i].offset && reg - cfg.regs[i].offset < cfg.regs[i].size &&
            (cfg.regs[i].access & access) == access)
            return true;
    return false;
}

static bool user_mode_reg(uint32_t reg)
{
    uint32_t base = igpu_engine_base(cfg.engine);
    if (reg >= GEN9_RING_CS_GPR(base, 0) && reg < GEN9_RING_CS_GPR(base, GEN9_CS_GPR_COUNT))
        return true;
    if (cfg.engine == IGPU_BCS && reg == GEN9_BCS_SWCTRL)
        return true;
    for (unsigned i = 0; i < GEN9_RING_NONPRIV_SLOTS; i++)
        if ((nonpriv[i] & GEN9_RING_FORCE_TO_NONPRIV_ADDR_MASK) == reg)
            return true;
    return false;
}

static int cb_mem(void *ctx, enum igpu_cs_space s, uint64_t ga, void *buf, uint32_t len,
                  enum igpu_cs_access how)
{
    uint64_t page = ga >> 12;
    check((unsigned)s <= IGPU_CS_PPGTT && len > 0 && (ga & 4095u) + len <= 4096u);
    check(ga < 1ull << 48);
    /* A non-privileged batch reaches only the PPGTT, for everything it does. */
    if (!privileged())
        check(s == IGPU_CS_PPGTT);
    if (s == IGPU_CS_PPGTT)
        check(cfg.ppgtt);
    if (page >= PAGES || !present[s][page])
        return -1;
    if (how == IGPU_CS_WRITE) {
        if (!writable[s][page])
            return -1;
        memcpy(&st.mem[s][ga], buf, len);
    } else {
        memcpy(buf, &st.mem[s][ga], len);
    }
    return 0;
}

static uint32_t *reg_slot(uint32_t reg, bool create)
{
    for (unsigned i = 0; i < st.n_regs; i++)
        if (st.regs[i].reg == reg)
            return &st.regs[i].val;
    if (!create || st.n_regs == MAX_REGS)
        return NULL;
    st.regs[st.n_regs].reg = reg;
    st.regs[st.n_regs].val = 0;
    return &st.regs[st.n_regs++].val;
}

static int cb_reg_write(void *ctx, uint32_t reg, uint32_t val)
{
    uint32_t *p;
    check(!(reg & 3u));
    check(in_allow_list(reg, IGPU_SCAN_REG_WRITE));
    if (!privileged())
        check(user_mode_reg(reg));
    if (!(p = reg_slot(reg, true)))
        return -1; /* a full file refuses: the engine faults */
    *p = val;
    return 0;
}

static int cb_reg_read(void *ctx, uint32_t reg, uint32_t *val)
{
    uint32_t base = igpu_engine_base(cfg.engine), *p;
    if (reg >= GEN9_RING_FORCE_TO_NONPRIV(base, 0) &&
        reg < GEN9_RING_FORCE_TO_NONPRIV(base, GEN9_RING_NONPRIV_SLOTS)) {
        *val = nonpriv[(reg - GEN9_RING_FORCE_TO_NONPRIV(base, 0)) / 4u];
        return 0;
    }
    /* An SRM's register, or the bytes an LRI keeps (only of a register it may write). */
    check(in_allow_list(reg, IGPU_SCAN_REG_READ) || in_allow_list(reg, IGPU_SCAN_REG_WRITE));
    p = reg_slot(reg, false);
    *val = p ? *p : 0;
    return 0;
}

static uint64_t cb_timestamp(void *ctx)
{
    return st.ts += 80;
}

static void cb_event(void *ctx, uint32_t bits)
{
    check(bits == GEN9_GT_USER_INTERRUPT || bits == GEN9_GT_PIPECTL_NOTIFY);
    st.events++;
    if (bits == GEN9_GT_USER_INTERRUPT)
        st.user_irqs++;
    else
        st.notifies++;
}

static void cb_tlb(void *ctx)
{
    st.tlb++;
}

/* The stepped run's clock: the caller's time is up at the readings the input's bits say. */
static uint32_t late_bits, readings;
static bool cb_out_of_time(void *ctx)
{
    return (late_bits >> (readings++ % 32u)) & 1u;
}

static const struct igpu_cs_ops ops = { .mem = cb_mem,
                                        .reg_write = cb_reg_write,
                                        .reg_read = cb_reg_read,
                                        .timestamp = cb_timestamp,
                                        .event = cb_event,
                                        .tlb_invalidate = cb_tlb,
                                        .out_of_time = cb_out_of_time };

/* What a run reports, as both kinds of run report it. */
static void check_result(const struct igpu_cs_result *res, const struct igpu_cs_ring *ring)
{
    check(res->commands <= BUDGET && res->head < ring->size && !(res->head & 3u));
    check(st.user_irqs == res->user_interrupts && st.notifies == res->notifies);
    check((unsigned)res->fault < IGPU_CS_F_COUNT);
}

static void setup(struct cursor *c, struct igpu_cs_ring *ring)
{
    static const struct igpu_scan_reg *const lists[IGPU_NUM_GT_ENGINES] = {
        [IGPU_RCS] = igpu_cs_i915_regs_rcs,
        [IGPU_BCS] = NULL,
        [IGPU_VCS] = igpu_cs_i915_regs_vcs,
        [IGPU_VECS] = igpu_cs_i915_regs_vecs,
    };
    const size_t counts[IGPU_NUM_GT_ENGINES] = {
        igpu_cs_i915_regs_rcs_count,
        0,
        igpu_cs_i915_regs_vcs_count,
        igpu_cs_i915_regs_vecs_count,
    };
    unsigned flags = (unsigned)take(c, 1);
    uint32_t map = (uint32_t)take(c, 4), ro = (uint32_t)take(c, 2);

    memset(&cfg, 0, sizeof cfg);
    cfg.engine = (enum igpu_engine)(flags % IGPU_NUM_GT_ENGINES);
    if (!(flags & 4u)) {
        cfg.regs = lists[cfg.engine];
        cfg.n_regs = counts[cfg.engine];
    }
    cfg.ppgtt = !(flags & 8u);
    cfg.max_commands = BUDGET;
    /* Pages: most present (the input unmaps some), the ring's page always. */
    for (unsigned s = 0; s < 2; s++)
        for (unsigned p = 0; p < PAGES; p++) {
            present[s][p] = !((map >> (PAGES * s + p)) & 1u) || (s == 0 && p == 0);
            writable[s][p] = !((ro >> p) & 1u);
        }
    /* The ring: GGTT page 0, one page (or more, wrapping into the next). */
    ring->start = 0;
    ring->size = 4096u << ((flags >> 4) & 1u);
    ring->head = (uint32_t)(take(c, 2) * 4u) % ring->size;
    ring->tail = (uint32_t)(take(c, 2) * 4u) % ring->size;
    cfg.pphwsp_gaddr = 4096u * (take(c, 1) % PAGES);
    for (unsigned i = 0; i < GEN9_RING_NONPRIV_SLOTS; i++)
        nonpriv[i] = 0;
    for (unsigned i = 0; i < 2; i++) {
        uint32_t base = igpu_engine_base(cfg.engine), k = (uint32_t)take(c, 1);
        /* A GPR, a chicken register, or anything. */
        nonpriv[i] = k < 64                ? GEN9_RING_CS_GPR(base, k % 16u)
                   : k < 128 && cfg.n_regs ? cfg.regs[k % cfg.n_regs].offset
                                           : (uint32_t)take(c, 4);
    }
    /* Chunks: space, offset, length, bytes.  The commands are little-endian dwords. */
    memset(&st, 0, sizeof st);
    while (c->n) {
        unsigned s = (unsigned)take(c, 1) & 1u;
        uint32_t off = (uint32_t)take(c, 2) % SPACE_BYTES & ~3u, len = (uint32_t)take(c, 1) * 4u;
        for (uint32_t i = 0; i < len && c->n && off + i < SPACE_BYTES; i++)
            st.mem[s][off + i] = (uint8_t)take(c, 1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cursor c = { data, size };
    struct igpu_cs_ring ring;
    struct igpu_cs_result one, stepped;
    enum igpu_cs_fault f1, f2;
    uint32_t piece;

    piece = size ? 1u + data[0] % 64u : 1u;
    if (size) {
        c.p++;
        c.n--;
    }
    /* Where the time runs out: a hash of the whole input (FNV-1a), so the kept inputs keep
     * the meaning of their bytes and every mutation moves the stops. */
    late_bits = 2166136261u;
    for (size_t i = 0; i < size; i++)
        late_bits = (late_bits ^ data[i]) * 16777619u;
    readings = 0;
    setup(&c, &ring);
    init = st;

    /* One run, as the vGPU runs an element. */
    stepping = false;
    f1 = igpu_cs_run(&cfg, &ops, &ring, &one);
    check(f1 == one.fault);
    check_result(&one, &ring);
    struct state after_one = st;

    /* The same from the same state, in pieces, with the privilege checks on the live engine. */
    st = init;
    stepping = true;
    memset(&stepped, 0, sizeof stepped);
    igpu_cs_init(&cs, cfg.engine, cfg.regs, cfg.n_regs, true, "MI-only streamer");
    igpu_cs_load(&cs, &ring, cfg.pphwsp_gaddr, cfg.ppgtt);
    f2 = IGPU_CS_OK;
    /* At least once: an idle ring reports its head.  A command stopped part way is finished
     * even at the budget, as the one run finishes its last command. */
    do {
        uint32_t before = stepped.commands, done = stepped.commands, units = cs.part.units;
        uint32_t n = done >= BUDGET ? 1u : piece < BUDGET - done ? piece : BUDGET - done;
        f2 = igpu_cs_step(&cs, &ops, n, &stepped);
        check(stepped.commands - before <= n);
        if (f2 != IGPU_CS_OK)
            break;
        /* Every step gets on: a command started, or one stopped part way further or done. */
        check(stepped.commands > before || cs.part.units != units || igpu_cs_idle(&cs));
    } while ((stepped.commands < BUDGET || cs.part.units) && !igpu_cs_idle(&cs));
    stepping = false;
    if (f2 == IGPU_CS_OK && !igpu_cs_idle(&cs))
        f2 = IGPU_CS_F_BUDGET;
    check_result(&stepped, &ring);

    check(f1 == f2);
    check(!memcmp(after_one.mem, st.mem, sizeof st.mem));
    check(after_one.n_regs == st.n_regs && !memcmp(after_one.regs, st.regs, sizeof st.regs));
    check(after_one.events == st.events && after_one.tlb == st.tlb && after_one.ts == st.ts);
    check(one.commands == stepped.commands && one.mem_writes == stepped.mem_writes &&
          one.reg_writes == stepped.reg_writes && one.batches == stepped.batches &&
          one.priv_dropped == stepped.priv_dropped && one.state_skipped == stepped.state_skipped &&
          one.nopid == stepped.nopid);
    if (f1 != IGPU_CS_OK && f1 != IGPU_CS_F_BUDGET)
        check(one.header == stepped.header && one.cmd_gaddr == stepped.cmd_gaddr &&
              one.cmd_space == stepped.cmd_space && one.detail == stepped.detail &&
              one.head == stepped.head && !strcmp(one.what, stepped.what));
    else
        check(one.head == stepped.head);
    return 0;
}
