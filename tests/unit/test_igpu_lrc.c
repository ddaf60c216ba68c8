/*
 * The Gen9 logical ring context image: the complete register-state
 * layout of i915's gen9_xcs_offsets / gen9_rcs_offsets, and the image igpu_lrc_init_state()
 * builds from it as i915's lrc_init_state() does (from a default image with restore allowed,
 * or from zeros with restore inhibited), with CONTEXT_CONTROL as init_common_regs() writes it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/igpu.h"

/* i915 gen9_xcs_offsets, written out: block header dword, count, relative offsets. */
static const uint16_t xcs_regs[GEN9_LRC_REGS] = {
    0x244, 0x034, 0x030, 0x038, 0x03c, 0x168, 0x140, 0x110, 0x11c, 0x114, 0x118, 0x1c0,
    0x1c4, 0x1c8, 0x3a8, 0x28c, 0x288, 0x284, 0x280, 0x27c, 0x278, 0x274, 0x270, 0x200,
    0x028, 0x09c, 0x0c0, 0x178, 0x17c, 0x358, 0x170, 0x150, 0x154, 0x158, 0x41c, 0x600,
    0x604, 0x608, 0x60c, 0x610, 0x614, 0x618, 0x61c, 0x620, 0x624, 0x628, 0x62c, 0x630,
    0x634, 0x638, 0x63c, 0x640, 0x644, 0x648, 0x64c, 0x650, 0x654, 0x658, 0x65c, 0x660,
    0x664, 0x668, 0x66c, 0x670, 0x674, 0x678, 0x67c, 0x068,
};

static void layout_is_i915s(void **state)
{
    (void)state;
    const struct gen9_lrc_layout *x = igpu_lrc_layout(IGPU_BCS), *r = igpu_lrc_layout(IGPU_RCS);
    static const uint16_t hdr[4] = { 0x01, 0x21, 0x41, 0x51 };
    static const uint8_t cnt[4] = { 14, 9, 1, 44 };
    assert_non_null(x);
    assert_non_null(r);
    assert_null(igpu_lrc_layout(IGPU_NUM_ENGINES));
    for (unsigned k = 0; k < 4; k++) {
        assert_int_equal(x->block[k].header, hdr[k]);
        assert_int_equal(x->block[k].count, cnt[k]);
        assert_int_equal(x->block[k].engine_ctx, k >= 2);
        assert_int_equal(r->block[k].header, hdr[k]);
    }
    for (unsigned i = 0; i < GEN9_LRC_REGS; i++) {
        assert_int_equal(x->reg[i], xcs_regs[i]);
        /* render differs only in block 2: RPCS, LRI without FORCE_POSTED */
        assert_int_equal(r->reg[i], i == 23 ? 0x0c8 : xcs_regs[i]);
    }
    assert_true(x->block[2].posted);
    assert_false(r->block[2].posted);
    /* The named positions are the layout's (and i915's lrc_ring_*() helpers'). */
    assert_int_equal(gen9_lrc_value_dw(x, 0), GEN9_CTX_CONTEXT_CONTROL);
    assert_int_equal(gen9_lrc_value_dw(x, 1), GEN9_CTX_RING_HEAD);
    assert_int_equal(gen9_lrc_value_dw(x, 2), GEN9_CTX_RING_TAIL);
    assert_int_equal(gen9_lrc_value_dw(x, 3), GEN9_CTX_RING_START);
    assert_int_equal(gen9_lrc_value_dw(x, 4), GEN9_CTX_RING_CTL);
    assert_int_equal(gen9_lrc_value_dw(x, 14), GEN9_CTX_TIMESTAMP);
    assert_int_equal(gen9_lrc_value_dw(x, 23), GEN9_CTX_BCS_SWCTRL);
    assert_int_equal(gen9_lrc_value_dw(x, 25), GEN9_CTX_MI_MODE);   /* 0x54 + 1 */
    assert_int_equal(gen9_lrc_value_dw(x, 33), GEN9_CTX_BB_OFFSET); /* 0x64 + 1 */
    assert_int_equal(gen9_lrc_value_dw(x, 35), GEN9_CTX_GPR0);      /* 0x68 + 1 */
    assert_int_equal(gen9_lrc_value_dw(x, 67) + 1, GEN9_LRC_STATE_DW);
    assert_int_equal(GEN9_BCS_BASE + x->reg[23], GEN9_BCS_SWCTRL);
}

static void inhibited_image_without_a_default(void **state)
{
    (void)state;
    uint32_t s[1024];
    const struct gen9_lrc_layout *x = igpu_lrc_layout(IGPU_BCS);
    memset(s, 0xAB, sizeof s);
    assert_int_equal(igpu_lrc_init_state(s, 1024, IGPU_BCS, NULL, 0x40000, 0x8000, 0x10, 0x20), 0);
    /* Every header and offset of the layout; zeros elsewhere; closed with BB_END. */
    for (unsigned k = 0; k < GEN9_LRC_BLOCKS; k++)
        assert_int_equal(s[x->block[k].header],
                         GEN9_MI_LOAD_REGISTER_IMM(x->block[k].count) | GEN9_MI_LRI_FORCE_POSTED);
    for (unsigned i = 0; i < GEN9_LRC_REGS; i++)
        assert_int_equal(s[gen9_lrc_value_dw(x, i) - 1], GEN9_BCS_BASE + xcs_regs[i]);
    assert_int_equal(s[0], 0);
    assert_int_equal(s[GEN9_LRC_STATE_DW], GEN9_MI_BATCH_BUFFER_END);
    assert_int_equal(s[GEN9_LRC_STATE_DW + 1], 0);
    for (unsigned i = 0; i < 32; i++)
        assert_int_equal(s[GEN9_CTX_GPR0 + 2 * i], 0);
    /* init_common_regs() with inhibit: SYN switch inhibited, restore inhibited, save and RS
     * context cleared. */
    assert_int_equal(s[GEN9_CTX_CONTEXT_CONTROL],
                     GEN9_MASKED_BIT_ENABLE(GEN9_CTX_CTRL_INHIBIT_SYN_SWITCH) |
                         GEN9_MASKED_BIT_DISABLE(GEN9_CTX_CTRL_RS_CTX_ENABLE |
                                                 GEN9_CTX_CTRL_SAVE_INHIBIT) |
                         GEN9_MASKED_BIT_ENABLE(GEN9_CTX_CTRL_RESTORE_INHIBIT));
    assert_int_equal(s[GEN9_CTX_CONTEXT_CONTROL], 0x000F0009u);
    /* Ring registers (lrc_update_regs) and STOP_RING cleared (__reset_stop_ring). */
    assert_int_equal(s[GEN9_CTX_RING_HEAD], 0x10);
    assert_int_equal(s[GEN9_CTX_RING_TAIL], 0x20);
    assert_int_equal(s[GEN9_CTX_RING_START], 0x40000);
    assert_int_equal(s[GEN9_CTX_RING_CTL], 0x7000 | GEN9_RING_VALID); /* 8 pages - 1 */
    assert_int_equal(s[GEN9_CTX_MI_MODE], GEN9_MASKED_BIT_DISABLE(GEN9_MI_MODE_STOP_RING));
}

static void image_from_a_default_keeps_its_values(void **state)
{
    (void)state;
    uint32_t d[1024], s[1024];
    assert_int_equal(igpu_lrc_init_state(d, 1024, IGPU_BCS, NULL, 0x1000, 0x1000, 0, 0), 0);
    /* What an engine saved: its own values, masked registers with their mask bits. */
    d[GEN9_LRC_STATE_DW] = GEN9_MI_BATCH_BUFFER_END;
    d[GEN9_CTX_BCS_SWCTRL] = 0xFFFF0000u;
    d[GEN9_CTX_MI_MODE] = 0xFFFF0000u | GEN9_MI_MODE_STOP_RING;
    d[GEN9_CTX_GPR0 + 6] = 0x1234;
    d[GEN9_CTX_PDP3_UDW] = 0x99;
    d[GEN9_CTX_TIMESTAMP] = 777;
    d[0x1e] = 0x55; /* between blocks: kept as saved */
    assert_int_equal(igpu_lrc_init_state(s, 1024, IGPU_BCS, d, 0x80000, 0x2000, 0x8, 0x18), 0);
    assert_int_equal(s[GEN9_CTX_CONTEXT_CONTROL], 0x000F0008u); /* restore not inhibited */
    assert_int_equal(s[GEN9_CTX_GPR0 + 6], 0x1234);
    assert_int_equal(s[GEN9_CTX_BCS_SWCTRL], 0xFFFF0000u);
    assert_int_equal(s[0x1e], 0x55);
    assert_int_equal(s[GEN9_CTX_PDP3_UDW], 0); /* GGTT only */
    assert_int_equal(s[GEN9_CTX_TIMESTAMP], 0);
    assert_int_equal(s[GEN9_CTX_MI_MODE] & 0xFFFF, 0);
    assert_int_equal(s[GEN9_CTX_MI_MODE] >> 16, 0xFFFF);
    assert_int_equal(s[GEN9_CTX_RING_START], 0x80000);
    assert_int_equal(s[GEN9_CTX_RING_HEAD], 0x8);
    assert_int_equal(s[GEN9_CTX_RING_TAIL], 0x18);
    /* in place works too */
    assert_int_equal(igpu_lrc_init_state(d, 1024, IGPU_BCS, d, 0x80000, 0x2000, 0, 0), 0);
    assert_int_equal(d[GEN9_CTX_GPR0 + 6], 0x1234);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    uint32_t s[1024];
    assert_int_equal(igpu_lrc_init_state(s, 1024, IGPU_RCS, NULL, 0x40001, 0x8000, 0, 0),
                     IGPU_EINVAL);
    assert_int_equal(igpu_lrc_init_state(s, 1024, IGPU_RCS, NULL, 0x40000, 0x1800, 0, 0),
                     IGPU_EINVAL);
    assert_int_equal(igpu_lrc_init_state(s, 1024, IGPU_RCS, NULL, 0x40000, 4u << 20, 0, 0),
                     IGPU_EINVAL);
    assert_int_equal(igpu_lrc_init_state(s, 1024, IGPU_RCS, NULL, 0x40000, 0x1000, 0, 0x1000),
                     IGPU_EINVAL);
    assert_int_equal(igpu_lrc_init_state(s, 1024, IGPU_RCS, NULL, 0x40000, 0x1000, 0, 4),
                     IGPU_EINVAL);
    assert_int_equal(igpu_lrc_init_state(s, 1000, IGPU_RCS, NULL, 0x40000, 0x1000, 0, 0),
                     IGPU_EINVAL);
    assert_int_equal(igpu_lrc_init_state(s, 1024, IGPU_NUM_ENGINES, NULL, 0x40000, 0x1000, 0, 0),
                     IGPU_EINVAL);
    assert_int_equal(igpu_lrc_init_state(s, 1024, IGPU_RCS, NULL, 0x40000, 2u << 20, 0, 0), 0);
    assert_int_equal(s[GEN9_CTX_BCS_SWCTRL - 1], GEN9_RING_RPCS(GEN9_RCS_BASE));
    assert_int_equal(s[GEN9_CTX_LRI_HEADER_2], GEN9_MI_LOAD_REGISTER_IMM(1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layout_is_i915s),
        cmocka_unit_test(inhibited_image_without_a_default),
        cmocka_unit_test(image_from_a_default_keeps_its_values),
        cmocka_unit_test(bad_arguments_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
