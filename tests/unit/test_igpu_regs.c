/*
 * Gen9 definitions against the values i915 and the PRM give, the
 * fence and descriptor encoders, PCI discovery (ids, BAR sizing, GMCH/BDSM decoding) against
 * a fake configuration space and timestamp conversion (the context image: test_igpu_lrc.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/igpu.h"

static void test_design_facts(void **state)
{
    (void)state;
    /* Engines and ring registers. */
    assert_int_equal(GEN9_RCS_BASE, 0x2000);
    assert_int_equal(GEN9_BCS_BASE, 0x22000);
    assert_int_equal(GEN9_RING_TAIL(GEN9_RCS_BASE), 0x2030);
    assert_int_equal(GEN9_RING_HEAD(GEN9_RCS_BASE), 0x2034);
    assert_int_equal(GEN9_RING_START(GEN9_RCS_BASE), 0x2038);
    assert_int_equal(GEN9_RING_CTL(GEN9_RCS_BASE), 0x203C);
    assert_int_equal(GEN9_RING_HWS_PGA(GEN9_BCS_BASE), 0x22080);
    assert_int_equal(GEN9_RING_ELSP(GEN9_BCS_BASE), 0x22230);
    assert_int_equal(GEN9_RING_CSB_LO(GEN9_RCS_BASE, 0), 0x2370);
    assert_int_equal(GEN9_RING_CSB_HI(GEN9_RCS_BASE, 5), 0x239C);
    assert_int_equal(GEN9_CSB_ENTRIES, 6);
    assert_int_equal(GEN9_RING_CSB_PTR(GEN9_RCS_BASE), 0x23A0);
    assert_int_equal(GEN9_RING_MODE(GEN9_RCS_BASE), 0x229C);
    /* Fences, GGTT flush, forcewake. */
    assert_int_equal(GEN9_FENCE_COUNT, 32);
    assert_int_equal(GEN9_FENCE_REG_LO(0), 0x100000);
    assert_int_equal(GEN9_FENCE_REG_LO(31), 0x1000F8);
    assert_int_equal(GEN9_FENCE_REG_HI(31), 0x1000FC);
    assert_int_equal(GEN9_GFX_FLSH_CNTL, 0x101008);
    assert_int_equal(GEN9_FORCEWAKE_RENDER, 0xA278);
    assert_int_equal(GEN9_FORCEWAKE_ACK_RENDER, 0x0D84);
    assert_int_equal(GEN9_FORCEWAKE_GT, 0xA188);
    assert_int_equal(GEN9_FORCEWAKE_ACK_GT, 0x130044);
    /* PCI configuration. */
    assert_int_equal(GEN9_PCI_GMCH_CTRL, 0x50);
    assert_int_equal(GEN9_PCI_BDSM, 0x5C);
    /* BAR0: 16 MiB, GGTT at +8 MiB, 8-byte entries, 1 Mi of them. */
    assert_int_equal(GEN9_GGTT_BAR0_OFFSET, 8u << 20);
    assert_int_equal(GEN9_GGTT_MAX_ENTRIES * GEN9_GGTT_PTE_SIZE, 8u << 20);
    /* GGTT entry: address bits 38:12, bit 0 present. */
    assert_int_equal(gen9_ggtt_pte_encode(0x7FFFFFFFFFull), 0x7FFFFFF001ull);
    assert_int_equal(gen9_ggtt_pte_encode(0x80000001000ull), 0x1001);
    /* Context descriptor: bits 31:12 LRCA, bit 0 valid, context id in the upper dword. */
    assert_int_equal(gen9_ctx_desc(0x12345FFF, 0x7, 0), 0x700000000ull | 0x12345001ull);
    assert_int_equal(gen9_ctx_desc_lrca(0x700000000ull | 0x12345001ull), 0x12345000u);
    assert_int_equal(gen9_ctx_desc_id(0x700000000ull | 0x12345001ull), 7);
    /* Context image: ring register values at dwords 5, 7, 9, 11 of the state page. */
    assert_int_equal(GEN9_CTX_RING_HEAD, 5);
    assert_int_equal(GEN9_CTX_RING_TAIL, 7);
    assert_int_equal(GEN9_CTX_RING_START, 9);
    assert_int_equal(GEN9_CTX_RING_CTL, 11);
    assert_int_equal(GEN9_LRC_STATE_OFFSET, 4096);
}

static void test_fence_encoding(void **state)
{
    uint64_t v = gen9_fence_encode(0x00200000, 0x00100000, 4096, true);
    struct gen9_fence fd;
    (void)state;
    /* end page 0x2FF000 in bits 63:44, pitch 4096/128 - 1 = 31 in 42:32, start in 31:12. */
    assert_int_equal(v >> 44, 0x2FF);
    assert_int_equal((v >> 32) & 0x7FF, 31);
    assert_int_equal(v & 0xFFFFF000u, 0x00200000);
    assert_true(v & GEN9_FENCE_TILING_Y);
    assert_true(v & GEN9_FENCE_VALID);
    fd = gen9_fence_decode(v);
    assert_true(fd.valid && fd.y_tiled);
    assert_int_equal(fd.start, 0x00200000);
    assert_int_equal(fd.end, 0x00300000);
    assert_int_equal(fd.pitch, 4096);
    fd = gen9_fence_decode(gen9_fence_encode(0xFFFFF000u, 0x1000, 128 * 2048, false));
    assert_int_equal(fd.end, 0x100000000ull); /* the last page of 4 GiB */
    assert_int_equal(fd.pitch, 128u * 2048u);
    assert_false(fd.y_tiled);
    assert_int_equal(gen9_fence_encode(0x1000, 0, 512, false), 0);
    assert_false(gen9_fence_decode(0).valid);
}

static void test_masked_registers(void **state)
{
    (void)state;
    assert_int_equal(GEN9_MASKED_BIT_ENABLE(GEN9_GFX_RUN_LIST_ENABLE), 0x80008000u);
    assert_int_equal(GEN9_MASKED_BIT_DISABLE(GEN9_FORCEWAKE_KERNEL), 0x00010000u);
    assert_int_equal(gen9_masked_apply(0x00F0, GEN9_MASKED_FIELD(0x0F00, 0x0A0F)), 0x0AF0);
    assert_int_equal(gen9_masked_apply(0xFFFF, 0x00000000), 0xFFFF);
}

static void test_gmch_and_bdsm_decoding(void **state)
{
    (void)state;
    assert_int_equal(igpu_gmch_ggtt_size(3u << 6), 8u << 20);
    assert_int_equal(igpu_gmch_ggtt_size(1u << 6), 2u << 20);
    assert_int_equal(igpu_gmch_ggtt_size(0), 0);
    assert_int_equal(igpu_gmch_stolen_size(0x01u << 8), 32u << 20);
    assert_int_equal(igpu_gmch_stolen_size(0x02u << 8 | 3u << 6), 64u << 20);
    assert_int_equal(igpu_gmch_stolen_size(0xF0u << 8), 4u << 20);
    assert_int_equal(igpu_gmch_stolen_size(0xF1u << 8), 8u << 20);
    assert_int_equal(igpu_bdsm_base(0x7B000001u), 0x7B000000u);
    assert_true(igpu_pci_id_supported(0x8086, 0x1912));
    assert_true(igpu_pci_id_supported(0x8086, 0x193D));
    assert_false(igpu_pci_id_supported(0x8086, 0x5912)); /* Kaby Lake: not listed */
    assert_false(igpu_pci_id_supported(0x1234, 0x1912));
    assert_int_equal(igpu_bar_size_from_probe(0xFF00000Cu, 0xFFFFFFFFu), 16u << 20);
    assert_int_equal(igpu_bar_size_from_probe(0xF000000Cu, 0xFFFFFFFFu), 256u << 20);
    assert_int_equal(igpu_bar_size_from_probe(0x0000000Cu, 0xFFFFFFF0u), 1ull << 36);
    assert_int_equal(igpu_bar_size_from_probe(0, 0), 0);
}

/* A fake configuration space with sizing behaviour for 64-bit BARs at 0x10 and 0x18. */
struct cfgspace {
    uint32_t r[64];
    uint64_t bar_size[2];
    unsigned writes;
    bool decode_off_while_sizing;
};

static uint32_t cfg_read(void *ctx, uint16_t off)
{
    struct cfgspace *c = ctx;
    return c->r[off / 4];
}

static void cfg_write(void *ctx, uint16_t off, uint32_t val)
{
    struct cfgspace *c = ctx;
    unsigned bar = off == 0x10 || off == 0x14 ? 0 : off == 0x18 || off == 0x1C ? 1 : 2;
    c->writes++;
    if (bar < 2) {
        uint64_t mask = ~(c->bar_size[bar] - 1);
        if (val == 0xFFFFFFFFu && !(c->r[1] & 2u))
            c->decode_off_while_sizing = true;
        if (off & 4)
            c->r[off / 4] = val & (uint32_t)(mask >> 32);
        else
            c->r[off / 4] = (val & (uint32_t)mask & 0xFFFFFFF0u) | 0xCu; /* 64-bit pref */
        return;
    }
    c->r[off / 4] = val;
}

static void cfg_init(struct cfgspace *c)
{
    memset(c, 0, sizeof(*c));
    c->r[0] = 0x19128086u;
    c->r[1] = 0x00100007u; /* memory + io + master decode on */
    c->r[2] = 0x03000006u; /* class VGA, revision 6 */
    c->bar_size[0] = 16u << 20;
    c->bar_size[1] = 256u << 20;
    c->r[4] = 0xF600000Cu; /* BAR0 at 0xF6000000 */
    c->r[5] = 0;
    c->r[6] = 0xE000000Cu; /* BAR2 at 0x1_E0000000 */
    c->r[7] = 0x1;
    c->r[0x50 / 4] = (0x02u << 8) | (3u << 6);
    c->r[0x5C / 4] = 0x7B000001u;
}

static void test_discover(void **state)
{
    struct cfgspace c;
    struct igpu_pci_cfg cfg = { cfg_read, cfg_write, &c };
    struct igpu_info in;
    (void)state;
    cfg_init(&c);
    assert_int_equal(igpu_discover(&cfg, &in), 0);
    assert_int_equal(in.vendor, 0x8086);
    assert_int_equal(in.device, 0x1912);
    assert_int_equal(in.revision, 6);
    assert_int_equal(in.bar0_base, 0xF6000000u);
    assert_int_equal(in.bar0_size, 16u << 20);
    assert_int_equal(in.bar2_base, 0x1E0000000ull);
    assert_int_equal(in.bar2_size, 256u << 20);
    assert_int_equal(in.aperture_size, 256u << 20);
    assert_int_equal(in.ggtt_size, 8u << 20);
    assert_int_equal(in.ggtt_entries, 1u << 20);
    assert_int_equal(in.gm_size, 4ull << 30);
    assert_int_equal(in.stolen_size, 64u << 20);
    assert_int_equal(in.stolen_base, 0x7B000000u);
    assert_int_equal(in.timestamp_hz, 0); /* the backend reads it from CTC_MODE */
    /* Sizing happened with decoding off, and everything was put back. */
    assert_true(c.decode_off_while_sizing);
    assert_int_equal(c.r[1], 0x00100007u & 0xFFFF);
    assert_int_equal(c.r[4], 0xF600000Cu);
    assert_int_equal(c.r[6], 0xE000000Cu);
    assert_int_equal(c.r[7], 0x1);

    cfg_init(&c);
    c.r[0] = 0x11118086u; /* not a supported device */
    assert_int_equal(igpu_discover(&cfg, &in), IGPU_ENODEV);
    assert_int_equal(c.writes, 0);

    cfg_init(&c);
    c.r[4] = 0xF6000000u; /* a 32-bit BAR0 is not a Gen9 GTTMMADR */
    assert_int_equal(igpu_discover(&cfg, &in), IGPU_EINVAL);
    assert_int_equal(c.r[1], 0x0007); /* decoding restored even so */

    cfg_init(&c);
    c.r[0x50 / 4] = 0; /* GGMS 0: no GGTT */
    assert_int_equal(igpu_discover(&cfg, &in), IGPU_EINVAL);
}

static void test_tick_conversion(void **state)
{
    (void)state;
    assert_int_equal(igpu_ns_to_ticks(1000000000ull, 12000000), 12000000);
    assert_int_equal(igpu_ticks_to_ns(12, 12000000), 1000);
    assert_int_equal(igpu_ticks_to_ns(1, 12000000), 83);
    /* Large values do not overflow: 10^6 seconds. */
    assert_int_equal(igpu_ns_to_ticks(1000000ull * 1000000000ull, 12000000),
                     1000000ull * 12000000ull);
    assert_int_equal(igpu_ticks_to_ns(1000000ull * 12000000ull, 12000000),
                     1000000ull * 1000000000ull);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(igpu_engine_name(IGPU_RCS), "rcs");
    assert_string_equal(igpu_engine_name(IGPU_BCS), "bcs");
    assert_string_equal(igpu_engine_name(IGPU_VCS), "vcs");
    assert_string_equal(igpu_engine_name(IGPU_VECS), "vecs");
    assert_int_equal(igpu_engine_base(IGPU_NUM_GT_ENGINES), 0);
    assert_string_equal(igpu_engine_name(IGPU_NUM_GT_ENGINES), "?");
}

/* The four Skylake GT2 engines as i915 6.1 places them: MMIO bases (intel_engine_regs.h),
 * interrupt bank and shift (gen8_gt_irq_handler()), reset domain (engine_reset_domains[]). */
static void test_engines(void **state)
{
    static const struct {
        enum igpu_engine e;
        uint32_t base;
        unsigned bank, shift;
        uint32_t grdom;
    } want[] = {
        { IGPU_RCS, 0x2000, 0, 0, 1u << 1 },
        { IGPU_BCS, 0x22000, 0, 16, 1u << 3 },
        { IGPU_VCS, 0x12000, 1, 0, 1u << 2 },
        { IGPU_VECS, 0x1A000, 3, 0, 1u << 4 },
    };
    unsigned bank, shift;
    (void)state;
    for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(igpu_engine_base(want[i].e), want[i].base);
        assert_int_equal(igpu_engine_from_base(want[i].base), want[i].e);
        assert_true(igpu_engine_irq(want[i].e, &bank, &shift));
        assert_int_equal(bank, want[i].bank);
        assert_int_equal(shift, want[i].shift);
        assert_int_equal(igpu_engine_reset_domain(want[i].e), want[i].grdom);
    }
    assert_false(igpu_engine_irq(IGPU_NUM_GT_ENGINES, &bank, &shift));
    assert_int_equal(igpu_engine_reset_domain(IGPU_NUM_GT_ENGINES), 0);
    assert_int_equal(igpu_engine_from_base(0x32000), -1);
    /* The backends drive RCS and BCS only. */
    assert_int_equal(IGPU_NUM_ENGINES, 2);
    assert_string_equal(igpu_strerror(IGPU_ETIMEDOUT), "hardware did not acknowledge in time");
    assert_string_equal(igpu_strerror(-99), "unknown error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_design_facts),           cmocka_unit_test(test_engines),
        cmocka_unit_test(test_fence_encoding),         cmocka_unit_test(test_masked_registers),
        cmocka_unit_test(test_gmch_and_bdsm_decoding), cmocka_unit_test(test_discover),
        cmocka_unit_test(test_tick_conversion),        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
