/* Gen9 command encodings and decoding helpers (drivers/igpu/gen9_cmd.h) against the values
 * i915 emits (gt/intel_gpu_commands.h) and the PRM's field layouts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/igpu/gen9_cmd.h"

static void test_known_headers(void **state)
{
    (void)state;
    assert_int_equal(GEN9_MI_NOOP, 0x00000000u);
    assert_int_equal(GEN9_MI_USER_INTERRUPT, 0x01000000u);
    assert_int_equal(GEN9_MI_BATCH_BUFFER_END, 0x05000000u);
    /* i915 MI_BATCH_BUFFER_START_GEN8 = MI_INSTR(0x31, 1) */
    assert_int_equal(GEN9_MI_BATCH_BUFFER_START, 0x18800001u);
    /* i915 MI_STORE_DWORD_IMM_GEN4 | MI_USE_GGTT */
    assert_int_equal(GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT, 0x10400002u);
    /* i915 MI_STORE_QWORD_IMM_GEN8 */
    assert_int_equal(GEN9_MI_STORE_QWORD_IMM, 0x10200003u);
    assert_int_equal(GEN9_MI_LOAD_REGISTER_IMM(1), 0x11000001u);
    assert_int_equal(GEN9_MI_LOAD_REGISTER_IMM(3), 0x11000005u);
    assert_int_equal(GEN9_MI_STORE_REGISTER_MEM, 0x12000002u);
    assert_int_equal(GEN9_MI_LOAD_REGISTER_MEM, 0x14800002u);
    /* gen8_emit_flush_xcs: MI_FLUSH_DW + 1 */
    assert_int_equal(GEN9_MI_FLUSH_DW, 0x13000002u);
    /* GFX_OP_PIPE_CONTROL(6) */
    assert_int_equal(GEN9_PIPE_CONTROL, 0x7A000004u);
    /* i915 XY_COLOR_BLT_CMD | BLT_WRITE_RGBA | (7 - 2) */
    assert_int_equal(GEN9_XY_COLOR_BLT, 0x54300005u);
    assert_int_equal(GEN9_XY_SRC_COPY_BLT, 0x54F00008u);
}

static void test_type_and_opcode_fields(void **state)
{
    (void)state;
    assert_int_equal(gen9_cmd_type(GEN9_MI_FLUSH_DW), GEN9_CMD_TYPE_MI);
    assert_int_equal(gen9_cmd_type(GEN9_XY_COLOR_BLT), GEN9_CMD_TYPE_2D);
    assert_int_equal(gen9_cmd_type(GEN9_PIPE_CONTROL), GEN9_CMD_TYPE_3D);
    assert_int_equal(gen9_cmd_type(0x20000000u), GEN9_CMD_TYPE_RESERVED1);
    assert_int_equal(gen9_mi_opcode(GEN9_MI_BATCH_BUFFER_START), GEN9_MI_BATCH_BUFFER_START_OP);
    assert_int_equal(gen9_mi_opcode(GEN9_MI_LOAD_REGISTER_IMM(4)), GEN9_MI_LOAD_REGISTER_IMM_OP);
    assert_int_equal(gen9_2d_opcode(GEN9_XY_COLOR_BLT), GEN9_XY_COLOR_BLT_OP);
    assert_int_equal(gen9_2d_opcode(GEN9_XY_SRC_COPY_BLT), GEN9_XY_SRC_COPY_BLT_OP);
    assert_int_equal(gen9_3d_subtype(GEN9_PIPE_CONTROL), 3);
    assert_int_equal(gen9_3d_opcode(GEN9_PIPE_CONTROL), 2);
    assert_int_equal(gen9_3d_subop(GEN9_PIPE_CONTROL), 0);
    assert_true(gen9_is_pipe_control(GEN9_PIPE_CONTROL));
    /* 3DSTATE_VF_STATISTICS-like GFXPIPE header: not a PIPE_CONTROL */
    assert_false(gen9_is_pipe_control(GEN9_3D_INSTR(1, 0, 0x0B, 0)));
    assert_false(gen9_is_pipe_control(GEN9_MI_FLUSH_DW));
}

static void test_lengths(void **state)
{
    (void)state;
    /* MI opcodes 0x00..0x0F are single dwords whatever their low bits hold. */
    assert_int_equal(gen9_cmd_length_dw(GEN9_MI_NOOP | GEN9_MI_NOOP_ID_WRITE | 0xFF), 1);
    assert_int_equal(gen9_cmd_length_dw(GEN9_MI_USER_INTERRUPT), 1);
    assert_int_equal(gen9_cmd_length_dw(GEN9_MI_BATCH_BUFFER_END), 1);
    assert_int_equal(gen9_cmd_length_dw(GEN9_MI_BATCH_BUFFER_START), 3);
    assert_int_equal(gen9_cmd_length_dw(GEN9_MI_STORE_DATA_IMM), 4);
    assert_int_equal(gen9_cmd_length_dw(GEN9_MI_STORE_QWORD_IMM), 5);
    assert_int_equal(gen9_cmd_length_dw(GEN9_MI_LOAD_REGISTER_IMM(2)), 5);
    assert_int_equal(gen9_cmd_length_dw(GEN9_MI_STORE_REGISTER_MEM), GEN9_MI_SRM_LEN);
    /* MI_FLUSH_DW's length field is 6 bits: bit 7 (invalidate BSD) is not length. */
    assert_int_equal(gen9_cmd_length_dw(GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_INVALIDATE_BSD), 4);
    /* MI_STORE_DATA_IMM's field is 10 bits. */
    assert_int_equal(gen9_cmd_length_dw(GEN9_MI_INSTR(GEN9_MI_STORE_DATA_IMM_OP, 0x3FF)),
                     0x3FF + 2);
    assert_int_equal(gen9_cmd_length_dw(GEN9_PIPE_CONTROL), 6);
    assert_int_equal(gen9_cmd_length_dw(GEN9_XY_COLOR_BLT), 7);
    assert_int_equal(gen9_cmd_length_dw(GEN9_XY_SRC_COPY_BLT), 10);
    assert_int_equal(gen9_cmd_length_dw(0x20000005u), 0); /* reserved type 1 */
    assert_int_equal(gen9_cmd_length_dw(0xE0000005u), 0); /* reserved type 7 */
    assert_int_equal(gen9_mi_len_mask(GEN9_MI_LOAD_REGISTER_IMM_OP), 0xFF);
}

static void test_addresses(void **state)
{
    (void)state;
    assert_int_equal(gen9_gm_addr(0x12345678u, 0x9ABCu, ~0u), 0x9ABC12345678ull);
    /* Reserved high bits are not part of the address. */
    assert_int_equal(gen9_gm_addr(0x1000u, 0xFFFF0001u, ~0u), 0x100001000ull);
    assert_int_equal(gen9_gm_addr(0x1007u, 0, GEN9_MI_FLUSH_DW_ADDR_MASK), 0x1000u);
    assert_int_equal(gen9_gm_addr(0x1003u, 0, GEN9_MI_BB_START_ADDR_MASK), 0x1000u);
}

static void test_blit_fields(void **state)
{
    uint32_t br13 = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_SRC_COPY) | 4096u;

    (void)state;
    assert_int_equal(gen9_br13_bpp(br13), 4);
    assert_int_equal(gen9_br13_bpp(GEN9_BR13_DEPTH_8), 1);
    assert_int_equal(gen9_br13_bpp(GEN9_BR13_DEPTH_16_565), 2);
    assert_int_equal(gen9_br13_bpp(GEN9_BR13_DEPTH_16_1555), 2);
    assert_int_equal(gen9_br13_pitch(br13), 4096);
    assert_int_equal(gen9_br13_pitch(0xFFFFu), -1); /* signed field */
    assert_int_equal(gen9_br13_rop(br13), 0xCC);
    assert_int_equal(GEN9_BLT_COORD(3, 5), 0x00050003u);
    assert_int_equal(gen9_blt_x(GEN9_BLT_COORD(-2, 7)), -2);
    assert_int_equal(gen9_blt_y(GEN9_BLT_COORD(-2, 7)), 7);
    assert_int_equal(gen9_blt_y(GEN9_BLT_COORD(1, -9)), -9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_headers), cmocka_unit_test(test_type_and_opcode_fields),
        cmocka_unit_test(test_lengths),       cmocka_unit_test(test_addresses),
        cmocka_unit_test(test_blit_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
