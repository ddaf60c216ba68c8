/* Fuzzes the Skylake GT2 register file an i915 guest writes through BAR0 (vgt_regs.h) against
 * what docs/vgpu-i915.md promises of each kind of register.  The input is a sequence of reads
 * and writes (offsets from the table, its ranges, their misaligned neighbours or anywhere in
 * the register half), engine busy changes, engine faults and device resets.  After every
 * operation:
 *   - plain registers and range dwords read the last value written; masked registers take
 *     exactly the bits bits 31:16 select; read-only registers never change; the IIRs of units
 *     that never interrupt only ever lose bits;
 *   - RING_MI_MODE reads MODE_IDLE exactly when the engine is idle, and stopped() follows its
 *     STOP_RING; RESET_CTL's READY_TO_RESET follows the last REQUEST_RESET; GDRST reads 0 and
 *     asks to reset only the engines that exist (all of them for FULL); the PCODE mailbox
 *     reads complete; FPGA_DBG never reads an unclaimed access; RING_EIR only loses bits the
 *     guest clears and gains only the engine errors of a fault;
 *   - a write changes its own register only (the PCODE mailbox its data register too); an
 *     offset the file does not own reads 0 and a write to it changes nothing;
 *   - the read and write counters count every access. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_cursor.h"
#include "vmm/vgpu/i915/vgt/vgt_regs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TIMESTAMP_HZ 12000000u /* Skylake's 12 MHz: encodable */

static struct vgt_regs r;
static uint32_t expect[VGT_REGS_MAX]; /* what each table row reads (kinds with a rule) */
static uint32_t expect_range[VGT_REGS_RANGE_MAX_DW];
static unsigned range_total;

/* The engine whose register `reg(base)` is off, or -1. */
static int engine_of(uint32_t off, uint32_t reg0)
{
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++)
        if (off == igpu_engine_base((enum igpu_engine)e) + reg0)
            return (int)e;
    return -1;
}

/* The range dword of off (the ranges laid end to end), or -1. */
static int range_index(uint32_t off)
{
    unsigned base = 0;
    for (unsigned i = 0; i < vgt_reg_ranges_count; i++) {
        const struct vgt_reg_range *g = &vgt_reg_ranges[i];
        if (!(off & 3u) && off >= g->off && off - g->off < 4u * g->dwords)
            return (int)(base + (off - g->off) / 4u);
        base += g->dwords;
    }
    return -1;
}

static int row_index(uint32_t off)
{
    const struct vgt_reg_desc *d = vgt_regs_desc(off);
    return d ? (int)(d - vgt_reg_table) : -1;
}

/* An offset: a table row, a range dword, a neighbour of either, or anywhere in 2 MiB. */
static uint32_t pick_offset(struct cursor *c)
{
    unsigned sel = (unsigned)take(c, 1), k = (unsigned)take(c, 2);
    uint32_t off;
    if (sel < 128)
        off = vgt_reg_table[k % vgt_reg_table_count].off;
    else if (sel < 192) {
        const struct vgt_reg_range *g = &vgt_reg_ranges[k % vgt_reg_ranges_count];
        off = g->off + 4u * ((k >> 4) % (g->dwords + 1u)); /* one past the end too */
    } else if (sel < 224)
        off = vgt_reg_table[k % vgt_reg_table_count].off + (sel & 7u) - 4u;
    else
        off = (uint32_t)take(c, 3) & 0x1FFFFFu;
    return off;
}

static void reset_expectations(void)
{
    for (unsigned i = 0; i < vgt_reg_table_count; i++)
        expect[i] = r.val[i];
    memset(expect_range, 0, sizeof expect_range);
}

/* A write, and what it must have done. */
static void do_write(uint32_t off, uint32_t val)
{
    static struct vgt_regs before;
    struct vgt_regs_action act = { .reset_engines = 0xDEADu };
    int i = row_index(off), d = range_index(off), e, pcode_data = row_index(GEN9_PCODE_DATA);
    uint64_t writes = r.st.writes, ro = r.st.ro_ignored, resets = r.st.engine_resets;

    before = r;
    vgt_regs_write(&r, off, val, &act);
    check(r.st.writes == writes + 1);
    if (i < 0 && d < 0) {
        /* Not the file's: nothing of it changes, nothing is asked. */
        check(!vgt_regs_owns(off) && act.reset_engines == 0);
        check(!memcmp(r.val, before.val, sizeof r.val) &&
              !memcmp(r.range, before.range, sizeof r.range));
        return;
    }
    check(vgt_regs_owns(off));
    if (i < 0) {
        /* A range dword: that dword and nothing else. */
        expect_range[d] = val;
        check(act.reset_engines == 0 && r.range[d] == val);
        before.range[d] = val;
        check(!memcmp(r.range, before.range, sizeof r.range) &&
              !memcmp(r.val, before.val, sizeof r.val));
        return;
    }
    if (off != GEN9_GDRST)
        check(act.reset_engines == 0);
    /* A write changes its own row only (and the mailbox its data register). */
    check(!memcmp(r.range, before.range, sizeof r.range));
    for (unsigned k = 0; k < vgt_reg_table_count; k++)
        if (k != (unsigned)i && !(off == GEN9_PCODE_MAILBOX && k == (unsigned)pcode_data))
            check(r.val[k] == before.val[k]);
    if (off == GEN9_PCODE_MAILBOX)
        expect[pcode_data] = r.val[pcode_data];
    switch ((enum vgt_reg_kind)vgt_reg_table[i].kind) {
    case VGT_REG_PLAIN:
        expect[i] = val;
        break;
    case VGT_REG_MASKED:
        expect[i] = gen9_masked_apply(expect[i], val);
        break;
    case VGT_REG_RO:
        check(r.st.ro_ignored == ro + 1);
        break;
    case VGT_REG_IIR:
        expect[i] &= ~val;
        break;
    case VGT_REG_SPECIAL:
        if ((e = engine_of(off, GEN9_RING_MI_MODE(0))) >= 0) {
            /* Masked: STOP_RING follows a write that selects it, MODE_IDLE is status. */
            bool stop = (val & (GEN9_MI_MODE_STOP_RING << 16))
                          ? val & GEN9_MI_MODE_STOP_RING
                          : vgt_regs_stopped(&before, (enum igpu_engine)e);
            check(vgt_regs_stopped(&r, (enum igpu_engine)e) == stop);
        } else if (engine_of(off, GEN9_RING_RESET_CTL(0)) >= 0) {
            uint32_t req = GEN9_RESET_CTL_REQUEST_RESET, ready = GEN9_RESET_CTL_READY_TO_RESET;
            uint32_t now = r.val[i], was = before.val[i];
            if (val & req << 16)
                check(!!(now & ready) == !!(val & req));
            else
                check((now & ready) == (was & ready));
        } else if (engine_of(off, GEN9_RING_EIR(0)) >= 0) {
            check(r.val[i] == (before.val[i] & ~val));
        } else if (off == GEN9_GDRST) {
            uint32_t all = (1u << IGPU_NUM_GT_ENGINES) - 1u;
            check((act.reset_engines & ~all) == 0);
            if (val & GEN9_GRDOM_FULL)
                check(act.reset_engines == all);
            check(r.st.engine_resets == resets + (uint64_t)__builtin_popcount(act.reset_engines));
        } else if (off >= GEN9_HSW_PWR_WELL_CTL1 && off <= GEN9_HSW_PWR_WELL_CTL4) {
            uint32_t req = val & GEN9_PWR_WELL_SKL_REQ_MASK;
            check(r.val[i] == (req | req >> 1));
        }
        expect[i] = r.val[i];
        break;
    }
}

/* Row i reads what the rules say; the special ones their properties. */
static void check_row(unsigned i)
{
    const struct vgt_reg_desc *dsc = &vgt_reg_table[i];
    uint32_t off = dsc->off, v = vgt_regs_read(&r, off);
    int e;

    check(vgt_regs_owns(off) && vgt_regs_desc(off) == dsc);
    if ((e = engine_of(off, GEN9_RING_MI_MODE(0))) >= 0) {
        check(!!(v & GEN9_MI_MODE_IDLE) == !r.busy[e]);
        check(vgt_regs_stopped(&r, (enum igpu_engine)e) == !!(v & GEN9_MI_MODE_STOP_RING));
        check((v & 0xFFFF0000u) == 0 && vgt_regs_is_masked(off));
    } else if (off == GEN9_GDRST) {
        check(v == 0);
    } else if (off == GEN9_PCODE_MAILBOX) {
        /* Answered at once: the command byte becomes the error code, 0 (done) or, for SAGV
         * control only, "illegal command" (no SAGV). */
        uint32_t err = v & GEN9_PCODE_ERROR_MASK;
        check(!(v & GEN9_PCODE_READY) && (err == 0 || err == GEN9_PCODE_ILLEGAL_CMD));
    } else if (off == GEN9_FPGA_DBG) {
        check(!(v & GEN9_FPGA_DBG_RM_NOCLAIM));
    } else if (dsc->kind == VGT_REG_RO) {
        check(v == expect[i]);
    } else if (dsc->kind != VGT_REG_SPECIAL) {
        check(v == expect[i]);
        check(vgt_regs_is_masked(off) == (dsc->kind == VGT_REG_MASKED));
        if (dsc->kind == VGT_REG_MASKED)
            check((v & 0xFFFF0000u) == 0);
    }
}

/* What off reads, by the rules: a row's, a range dword's, or 0. */
static void check_offset(uint32_t off)
{
    int i = row_index(off), d = range_index(off);
    if (i >= 0)
        check_row((unsigned)i);
    else if (d >= 0)
        check(vgt_regs_read(&r, off) == expect_range[d]);
    else
        check(!vgt_regs_owns(off) && vgt_regs_read(&r, off) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cursor c = { data, size };

    check(vgt_regs_init(&r, TIMESTAMP_HZ));
    reset_expectations();
    range_total = 0;
    for (unsigned i = 0; i < vgt_reg_ranges_count; i++)
        range_total += vgt_reg_ranges[i].dwords;
    check(range_total <= VGT_REGS_RANGE_MAX_DW && vgt_reg_table_count <= VGT_REGS_MAX);
    while (c.n) {
        unsigned op = (unsigned)take(&c, 1);
        switch (op % 8u) {
        case 0:
        case 1:
        case 2: { /* a write */
            uint32_t off = pick_offset(&c), val = (uint32_t)take(&c, 4);
            do_write(off, val);
            check_offset(off);
            break;
        }
        case 3: { /* a read */
            uint32_t off = pick_offset(&c);
            uint64_t reads = r.st.reads;
            uint32_t v = vgt_regs_read(&r, off);
            check(r.st.reads == reads + 1);
            if (!vgt_regs_owns(off))
                check(v == 0);
            check_offset(off);
            break;
        }
        case 4: { /* the vGPU's engine busy state */
            unsigned e = (unsigned)take(&c, 1);
            vgt_regs_set_busy(&r, (enum igpu_engine)(e % 6u), e & 0x80u); /* 4, 5: none */
            if (e % 6u < IGPU_NUM_GT_ENGINES)
                check_offset(GEN9_RING_MI_MODE(igpu_engine_base((enum igpu_engine)(e % 6u))));
            break;
        }
        case 5: { /* an engine fault */
            unsigned e = (unsigned)take(&c, 1) % IGPU_NUM_GT_ENGINES;
            uint32_t eir = (uint32_t)take(&c, 4);
            uint32_t off = GEN9_RING_EIR(igpu_engine_base((enum igpu_engine)e));
            int i = row_index(off);
            uint32_t was = r.val[i];
            vgt_regs_engine_error(&r, (enum igpu_engine)e, eir);
            check(r.val[i] == (was | (eir & 0xFFFFu)));
            expect[i] = r.val[i];
            break;
        }
        case 6: { /* a 64-bit access: two dword writes */
            uint32_t off = pick_offset(&c) & ~7u;
            uint64_t val = take(&c, 8);
            do_write(off, (uint32_t)val);
            do_write(off + 4u, (uint32_t)(val >> 32));
            check_offset(off);
            check_offset(off + 4u);
            break;
        }
        default: /* device reset (guest restart) */
            if (take(&c, 1) == 0xA5) {
                check(vgt_regs_init(&r, TIMESTAMP_HZ));
                reset_expectations();
            }
            break;
        }
    }
    for (unsigned i = 0; i < vgt_reg_table_count; i++)
        check_row(i);
    return 0;
}
