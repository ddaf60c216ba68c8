/*
 * Gen9 model: XY_COLOR_BLT and XY_SRC_COPY_BLT produce the exact pixels (8/16/32 bpp,
 * write masks, ROPs, overlap, X/Y tiling), and a blit into a non-present GGTT page faults.
 */
#include "test_igpu_model_fixture.h"

#define BG 0xEEu

static void color_blt(uint32_t *c, uint32_t depth, uint32_t rop, int pitch, int x1, int y1, int x2,
                      int y2, uint64_t dst, uint32_t color)
{
    c[0] = GEN9_XY_COLOR_BLT;
    c[1] = depth | GEN9_BR13_ROP(rop) | ((uint32_t)pitch & GEN9_BR13_PITCH_MASK);
    c[2] = GEN9_BLT_COORD(x1, y1);
    c[3] = GEN9_BLT_COORD(x2, y2);
    c[4] = (uint32_t)dst;
    c[5] = (uint32_t)(dst >> 32);
    c[6] = color;
}

static void copy_blt(uint32_t *c, uint32_t rop, int dpitch, int dx, int dy, int w, int h,
                     uint64_t dst, int sx, int sy, int spitch, uint64_t src)
{
    c[0] = GEN9_XY_SRC_COPY_BLT;
    c[1] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(rop) | ((uint32_t)dpitch & GEN9_BR13_PITCH_MASK);
    c[2] = GEN9_BLT_COORD(dx, dy);
    c[3] = GEN9_BLT_COORD(dx + w, dy + h);
    c[4] = (uint32_t)dst;
    c[5] = (uint32_t)(dst >> 32);
    c[6] = GEN9_BLT_COORD(sx, sy);
    c[7] = (uint32_t)spitch & GEN9_BR11_PITCH_MASK;
    c[8] = (uint32_t)src;
    c[9] = (uint32_t)(src >> 32);
}

static uint8_t *px(struct fx *f, uint64_t gaddr)
{
    return f->mem + fx_pa(gaddr);
}

static void fill_bg(struct fx *f, uint64_t gaddr, size_t n)
{
    memset(px(f, gaddr), BG, n);
}

static void test_color_fill_32bpp_exact(void **state)
{
    struct fx f;
    uint32_t c[8];
    const int pitch = 256;
    (void)state;
    fx_init(&f);
    fill_bg(&f, FX_DATA, 8 * pitch);
    color_blt(c, GEN9_BR13_DEPTH_32, GEN9_ROP_PAT_COPY, pitch, 3, 2, 10, 5, FX_DATA, 0x11223344);
    c[7] = GEN9_MI_NOOP;
    fx_run_cmds(&f, IGPU_BCS, c, 8);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < pitch / 4; x++) {
            uint32_t v;
            memcpy(&v, px(&f, FX_DATA + (uint64_t)y * pitch + 4u * x), 4);
            if (x >= 3 && x < 10 && y >= 2 && y < 5)
                assert_int_equal(v, 0x11223344);
            else
                assert_int_equal(v, 0xEEEEEEEE);
        }
    fx_fini(&f);
}

static void test_color_fill_16_and_8bpp(void **state)
{
    struct fx f;
    uint32_t c[14];
    (void)state;
    fx_init(&f);
    fill_bg(&f, FX_DATA, 0x2000);
    color_blt(c, GEN9_BR13_DEPTH_16_565, GEN9_ROP_PAT_COPY, 64, 1, 1, 4, 2, FX_DATA, 0xFFFFABCD);
    color_blt(c + 7, GEN9_BR13_DEPTH_8, GEN9_ROP_PAT_COPY, 64, 5, 0, 7, 1, FX_DATA + 0x1000,
              0x0000005A);
    fx_run_cmds(&f, IGPU_BCS, c, 14);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    for (int x = 0; x < 32; x++) {
        uint16_t v;
        memcpy(&v, px(&f, FX_DATA + 64 + 2u * x), 2);
        assert_int_equal(v, (x >= 1 && x < 4) ? 0xABCD : 0xEEEE);
    }
    for (int x = 0; x < 64; x++)
        assert_int_equal(*px(&f, FX_DATA + 0x1000 + x), (x >= 5 && x < 7) ? 0x5A : BG);
    assert_int_equal(*px(&f, FX_DATA + 0x1000 + 64 + 5), BG); /* one row only */
    fx_fini(&f);
}

static void test_write_masks_32bpp(void **state)
{
    struct fx f;
    uint32_t c[14], v;
    (void)state;
    fx_init(&f);
    fill_bg(&f, FX_DATA, 64);
    color_blt(c, GEN9_BR13_DEPTH_32, GEN9_ROP_PAT_COPY, 64, 0, 0, 1, 1, FX_DATA, 0x11223344);
    c[0] &= ~GEN9_BLT_WRITE_RGB; /* alpha only */
    color_blt(c + 7, GEN9_BR13_DEPTH_32, GEN9_ROP_PAT_COPY, 64, 1, 0, 2, 1, FX_DATA, 0x11223344);
    c[7] &= ~GEN9_BLT_WRITE_ALPHA; /* colour only */
    fx_run_cmds(&f, IGPU_BCS, c, 14);
    memcpy(&v, px(&f, FX_DATA), 4);
    assert_int_equal(v, 0x11EEEEEE);
    memcpy(&v, px(&f, FX_DATA + 4), 4);
    assert_int_equal(v, 0xEE223344);
    fx_fini(&f);
}

static void test_src_copy_and_rops(void **state)
{
    struct fx f;
    uint32_t c[27];
    const uint64_t src = FX_DATA + 0x10000, dst = FX_DATA;
    (void)state;
    fx_init(&f);
    for (uint32_t i = 0; i < 0x400; i++) {
        uint32_t s = 0x01000000u * (i & 0xFF) + i, d = 0xF0F0F0F0u;
        memcpy(px(&f, src + 4u * i), &s, 4);
        memcpy(px(&f, dst + 4u * i), &d, 4);
        memcpy(px(&f, dst + 0x1000 + 4u * i), &d, 4);
    }
    /* 5x3 copy from (2,1) of a 128-byte pitch source to (4,2) of a 256-byte pitch dest. */
    copy_blt(c, GEN9_ROP_SRC_COPY, 256, 4, 2, 5, 3, dst, 2, 1, 128, src);
    /* XOR (S ^ D) into the second area. */
    copy_blt(c + 10, 0x66, 256, 0, 0, 2, 1, dst + 0x1000, 0, 0, 128, src);
    /* Colour blit with P ^ D. */
    color_blt(c + 20, GEN9_BR13_DEPTH_32, 0x5A, 256, 0, 1, 1, 2, dst + 0x1000, 0x0F0F0F0F);
    fx_run_cmds(&f, IGPU_BCS, c, 27);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 12; x++) {
            uint32_t v, e = 0xF0F0F0F0u;
            memcpy(&v, px(&f, dst + (uint64_t)y * 256 + 4u * x), 4);
            if (x >= 4 && x < 9 && y >= 2 && y < 5)
                memcpy(&e, px(&f, src + (uint64_t)(y - 1) * 128 + 4u * (x - 2)), 4);
            assert_int_equal(v, e);
        }
    for (int x = 0; x < 2; x++) {
        uint32_t v, s;
        memcpy(&v, px(&f, dst + 0x1000 + 4u * x), 4);
        memcpy(&s, px(&f, src + 4u * x), 4);
        assert_int_equal(v, s ^ 0xF0F0F0F0u);
    }
    {
        uint32_t v;
        memcpy(&v, px(&f, dst + 0x1000 + 256), 4);
        assert_int_equal(v, 0xFFFFFFFFu); /* 0x0F0F0F0F ^ 0xF0F0F0F0 */
    }
    fx_fini(&f);
}

static void test_overlapping_copy_within_surface(void **state)
{
    struct fx f;
    uint32_t c[12];
    enum { W = 1500, H = 4, PITCH = 8192 }; /* rows longer than one 4 KiB chunk */
    uint32_t *ref = malloc((size_t)PITCH * 8);
    (void)state;
    assert_non_null(ref);
    fx_init(&f);
    for (uint32_t i = 0; i < PITCH * 8 / 4; i++) {
        uint32_t v = i * 2654435761u;
        memcpy(px(&f, FX_DATA + 4u * i), &v, 4);
    }
    memcpy(ref, px(&f, FX_DATA), (size_t)PITCH * 8);
    /* Move a W x H block one pixel right and one row down: source and destination overlap. */
    copy_blt(c, GEN9_ROP_SRC_COPY, PITCH, 3, 2, W, H, FX_DATA, 2, 1, PITCH, FX_DATA);
    c[10] = c[11] = GEN9_MI_NOOP;
    fx_run_cmds(&f, IGPU_BCS, c, 12);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    for (int y = H - 1; y >= 0; y--) /* reference: copy through a snapshot */
        memmove(&ref[(y + 2) * (PITCH / 4) + 3], &ref[(y + 1) * (PITCH / 4) + 2], (size_t)W * 4);
    assert_memory_equal(px(&f, FX_DATA), ref, (size_t)PITCH * 8);
    free(ref);
    fx_fini(&f);
}

/* Offset of byte (x, y) in an X tile row layout, computed forward from the PRM picture: tiles
 * of 512 B x 8 rows laid out left to right, rows inside a tile stored one after another. */
static uint64_t prm_x(uint32_t pitch, uint32_t x, uint32_t y)
{
    uint32_t tiles_per_row = pitch / 512;
    return ((uint64_t)(y / 8) * tiles_per_row + x / 512) * 4096 + (y % 8) * 512 + x % 512;
}

/* Y tiles: 128 B x 32 rows, eight 16-byte columns of 32 rows each. */
static uint64_t prm_y(uint32_t pitch, uint32_t x, uint32_t y)
{
    uint32_t tiles_per_row = pitch / 128;
    return ((uint64_t)(y / 32) * tiles_per_row + x / 128) * 4096 + ((x % 128) / 16) * 512 +
           (y % 32) * 16 + x % 16;
}

static void test_tiled_destinations(void **state)
{
    struct fx f;
    uint32_t c[20];
    unsigned n = 0;
    const uint32_t xpitch = 1024, ypitch = 256;
    (void)state;
    fx_init(&f);
    fill_bg(&f, FX_DATA, 0x10000);
    /* X tiled: pitch in dwords. */
    color_blt(c, GEN9_BR13_DEPTH_32, GEN9_ROP_PAT_COPY, xpitch / 4, 120, 5, 140, 12, FX_DATA,
              0xAABBCCDD);
    c[0] |= GEN9_BLT_DST_TILED;
    n = 7;
    /* Y tiled: select Y-major for the destination through BCS_SWCTRL (masked). */
    c[n++] = GEN9_MI_LOAD_REGISTER_IMM(1);
    c[n++] = GEN9_BCS_SWCTRL;
    c[n++] = GEN9_MASKED_BIT_ENABLE(GEN9_BCS_SWCTRL_DST_Y);
    color_blt(c + n, GEN9_BR13_DEPTH_32, GEN9_ROP_PAT_COPY, ypitch / 4, 2, 30, 7, 34,
              FX_DATA + 0x8000, 0x01020304);
    c[n] |= GEN9_BLT_DST_TILED;
    n += 7;
    fx_run_cmds(&f, IGPU_BCS, c, n);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    for (uint32_t y = 0; y < 16; y++)
        for (uint32_t x = 100; x < 160; x++) {
            uint32_t v, e = (x >= 120 && x < 140 && y >= 5 && y < 12) ? 0xAABBCCDD : 0xEEEEEEEE;
            memcpy(&v, px(&f, FX_DATA + prm_x(xpitch, 4 * x, y)), 4);
            assert_int_equal(v, e);
        }
    for (uint32_t y = 28; y < 36; y++)
        for (uint32_t x = 0; x < 10; x++) {
            uint32_t v, e = (x >= 2 && x < 7 && y >= 30 && y < 34) ? 0x01020304 : 0xEEEEEEEE;
            memcpy(&v, px(&f, FX_DATA + 0x8000 + prm_y(ypitch, 4 * x, y)), 4);
            assert_int_equal(v, e);
        }
    fx_fini(&f);
}

static void test_blit_into_non_present_page_faults(void **state)
{
    struct fx f;
    uint32_t c[8];
    const uint64_t dst = FX_DATA + 0x20000;
    const struct igpu_model_fault *fl;
    struct igpu_model_stats s;
    (void)state;
    fx_init(&f);
    fill_bg(&f, dst, 0x3000);
    /* Rows of 4 KiB pitch: row 1 lies in the page after dst, which is made non-present. */
    assert_int_equal(igpu_ggtt_write(f.g, (uint32_t)((dst + 0x1000) >> 12), 0), 0);
    assert_int_equal(igpu_ggtt_flush(f.g), 0);
    color_blt(c, GEN9_BR13_DEPTH_32, GEN9_ROP_PAT_COPY, 4096, 0, 0, 16, 3, dst, 0x12345678);
    c[7] = GEN9_MI_NOOP;
    fx_run_cmds(&f, IGPU_BCS, c, 8);
    fl = igpu_model_fault(f.m, IGPU_BCS);
    assert_non_null(fl);
    assert_int_equal(fl->reason, IGPU_FAULT_GGTT_NOT_PRESENT);
    assert_int_equal(fl->gaddr, dst + 0x1000);
    assert_int_equal(fl->header, GEN9_XY_COLOR_BLT);
    assert_int_equal(fl->cmd_gaddr, FX_RING);
    assert_non_null(strstr(fl->detail, "write"));
    /* Row 0 was written before the fault, the unmapped row's backing page was not. */
    assert_int_equal(*(uint32_t *)px(&f, dst), 0x12345678);
    assert_int_equal(*px(&f, dst + 0x1000), BG);
    assert_int_equal(*px(&f, dst + 0x2000), BG);
    assert_int_equal(igpu_model_stats(f.m, IGPU_BCS, &s), 0);
    assert_int_equal(s.pixels, 16);
    assert_int_equal(s.faults, 1);
    assert_true(fx_reg(&f, GEN9_GT_IIR(0)) & (GEN9_GT_CS_MASTER_ERROR << GEN9_GT_BCS_IRQ_SHIFT));
    fx_fini(&f);
}

static void test_unmodelled_blit_options_fault(void **state)
{
    struct fx f;
    uint32_t c[8];
    (void)state;

    fx_init(&f);
    color_blt(c, GEN9_BR13_DEPTH_32 | GEN9_BR13_CLIP_ENABLE, GEN9_ROP_PAT_COPY, 64, 0, 0, 1, 1,
              FX_DATA, 1);
    c[7] = 0;
    fx_run_cmds(&f, IGPU_BCS, c, 8);
    assert_int_equal(igpu_model_fault(f.m, IGPU_BCS)->reason, IGPU_FAULT_UNSUPPORTED_FIELD);
    fx_fini(&f);

    fx_init(&f); /* a colour blit has no source operand */
    color_blt(c, GEN9_BR13_DEPTH_32, GEN9_ROP_SRC_COPY, 64, 0, 0, 1, 1, FX_DATA, 1);
    fx_run_cmds(&f, IGPU_BCS, c, 8);
    assert_int_equal(igpu_model_fault(f.m, IGPU_BCS)->reason, IGPU_FAULT_UNSUPPORTED_FIELD);
    fx_fini(&f);

    fx_init(&f); /* negative pitch */
    color_blt(c, GEN9_BR13_DEPTH_32, GEN9_ROP_PAT_COPY, -64, 0, 0, 1, 1, FX_DATA, 1);
    fx_run_cmds(&f, IGPU_BCS, c, 8);
    assert_int_equal(igpu_model_fault(f.m, IGPU_BCS)->reason, IGPU_FAULT_UNSUPPORTED_FIELD);
    assert_int_equal(fx_rd32(&f, FX_DATA), 0);
    fx_fini(&f);

    fx_init(&f); /* blits belong to the blitter */
    color_blt(c, GEN9_BR13_DEPTH_32, GEN9_ROP_PAT_COPY, 64, 0, 0, 1, 1, FX_DATA, 1);
    fx_run_cmds(&f, IGPU_RCS, c, 8);
    assert_int_equal(igpu_model_fault(f.m, IGPU_RCS)->reason, IGPU_FAULT_WRONG_ENGINE);
    fx_fini(&f);
}

static void test_empty_rectangle_writes_nothing(void **state)
{
    struct fx f;
    uint32_t c[8];
    (void)state;
    fx_init(&f);
    fill_bg(&f, FX_DATA, 256);
    color_blt(c, GEN9_BR13_DEPTH_32, GEN9_ROP_PAT_COPY, 64, 5, 5, 5, 9, FX_DATA, 1);
    c[7] = 0;
    fx_run_cmds(&f, IGPU_BCS, c, 8);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    for (int i = 0; i < 256; i++)
        assert_int_equal(*px(&f, FX_DATA + i), BG);
    fx_fini(&f);
}

/* Checker that denies any data write at or above its limit. */
static int deny_above(void *ctx, enum igpu_engine e, uint64_t gaddr, uint64_t len,
                      enum igpu_model_access kind)
{
    uint64_t limit = *(uint64_t *)ctx;
    (void)e;
    return kind == IGPU_ACCESS_WRITE && gaddr + len > limit;
}

static void test_access_check_denies_before_writing(void **state)
{
    struct fx f;
    struct igpu_model_config cfg;
    uint64_t limit = FX_DATA + 2 * 64;
    uint32_t c[8];
    (void)state;
    igpu_model_config_defaults(&cfg);
    cfg.ggtt_entries = FX_ENTRIES;
    cfg.aperture_size = (uint64_t)FX_ENTRIES * 4096u;
    cfg.gm_check = deny_above;
    cfg.gm_check_ctx = &limit;
    fx_init_cfg(&f, &cfg);
    fill_bg(&f, FX_DATA, 256);
    color_blt(c, GEN9_BR13_DEPTH_32, GEN9_ROP_PAT_COPY, 64, 0, 0, 4, 4, FX_DATA, 0x01010101);
    c[7] = 0;
    fx_run_cmds(&f, IGPU_BCS, c, 8);
    assert_int_equal(igpu_model_fault(f.m, IGPU_BCS)->reason, IGPU_FAULT_ACCESS_DENIED);
    assert_int_equal(igpu_model_fault(f.m, IGPU_BCS)->gaddr, FX_DATA + 2 * 64);
    assert_int_equal(*px(&f, FX_DATA + 64), 0x01);   /* rows 0..1 allowed */
    assert_int_equal(*px(&f, FX_DATA + 2 * 64), BG); /* row 2 never touched */
    fx_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_color_fill_32bpp_exact),
        cmocka_unit_test(test_color_fill_16_and_8bpp),
        cmocka_unit_test(test_write_masks_32bpp),
        cmocka_unit_test(test_src_copy_and_rops),
        cmocka_unit_test(test_overlapping_copy_within_surface),
        cmocka_unit_test(test_tiled_destinations),
        cmocka_unit_test(test_blit_into_non_present_page_faults),
        cmocka_unit_test(test_unmodelled_blit_options_fault),
        cmocka_unit_test(test_empty_rectangle_writes_nothing),
        cmocka_unit_test(test_access_check_denies_before_writing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
