/*
 * Gen9 model: GGTT translation and faults, the translation cache and its invalidation, the
 * GGTT window in BAR0, fences and X/Y de-tiling through the aperture, and the register file's
 * refusals.
 */
#include "test_igpu_model_fixture.h"

static void sdi(uint32_t *c, uint64_t addr, uint32_t v)
{
    c[0] = GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT;
    c[1] = (uint32_t)addr;
    c[2] = (uint32_t)(addr >> 32);
    c[3] = v;
}

static void test_translation_and_non_present(void **state)
{
    struct fx f;
    uint64_t pa, pte;
    uint8_t b[8];
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_model_gm_translate(f.m, FX_DATA + 0x123, &pa), 0);
    assert_int_equal(pa, fx_pa(FX_DATA) + 0x123);
    /* Remap one page elsewhere; the PTE is stored little-endian at gsm_base + 8 * index. */
    assert_int_equal(igpu_ggtt_write(f.g, 5, gen9_ggtt_pte_encode(0x7000)), 0);
    assert_int_equal(igpu_ggtt_read(f.g, 5, &pte), 0);
    assert_int_equal(pte, 0x7000 | GEN9_GGTT_PTE_PRESENT);
    assert_int_equal(*(uint64_t *)(f.mem + 5 * 8), 0x7001);
    assert_int_equal(igpu_model_gm_translate(f.m, 5 * 4096 + 8, &pa), 0);
    assert_int_equal(pa, 0x7008);
    /* Address bits above 38 are not part of the entry's address. */
    assert_int_equal(gen9_ggtt_pte_addr(0xFFFFFFFFFFFFFFFFull), 0x7FFFFFF000ull);
    /* Not present: CPU accesses fail, nothing is read. */
    assert_int_equal(igpu_ggtt_write(f.g, 6, 0x8000), 0);
    assert_int_equal(igpu_model_gm_translate(f.m, 6 * 4096, &pa), IGPU_EFAULT);
    assert_int_equal(igpu_model_gm_read(f.m, 6 * 4096 - 4, b, 8), IGPU_EFAULT);
    /* Beyond the GGTT. */
    assert_int_equal(igpu_model_gm_translate(f.m, (uint64_t)FX_ENTRIES * 4096, &pa), IGPU_ERANGE);
    assert_int_equal(igpu_ggtt_write(f.g, FX_ENTRIES, 0), IGPU_ERANGE);
    fx_fini(&f);
}

/* A run of entries (more than one chunk of the model's writer) lands exactly as the same
 * entries written one by one; a run past the GGTT's end is refused whole. */
static void test_write_run(void **state)
{
    struct fx f;
    uint64_t ptes[300], pte;
    (void)state;
    fx_init(&f);
    for (unsigned i = 0; i < 300; i++)
        ptes[i] = gen9_ggtt_pte_encode(0x100000ull + 4096ull * i);
    assert_int_equal(igpu_ggtt_write_run(f.g, 10, 300, ptes), IGPU_OK);
    for (unsigned i = 0; i < 300; i++) {
        assert_int_equal(igpu_ggtt_read(f.g, 10 + i, &pte), 0);
        assert_int_equal(pte, ptes[i]);
    }
    assert_int_equal(igpu_ggtt_read(f.g, 310, &pte), 0);
    assert_int_not_equal(pte, gen9_ggtt_pte_encode(0x100000ull + 4096ull * 300));
    assert_int_equal(igpu_ggtt_write_run(f.g, FX_ENTRIES - 2, 3, ptes), IGPU_ERANGE);
    assert_int_equal(igpu_ggtt_read(f.g, FX_ENTRIES - 2, &pte), 0);
    assert_int_not_equal(pte, ptes[0]);
    fx_fini(&f);
}

static void test_translations_cached_until_flush(void **state)
{
    struct fx f;
    uint32_t c[4];
    const uint64_t g = FX_DATA + 0x5000;
    const uint64_t other = fx_pa(FX_DATA + 0x9000);
    (void)state;
    fx_init(&f);
    sdi(c, g, 1);
    fx_run_cmds(&f, IGPU_BCS, c, 4);
    assert_int_equal(fx_rd32(&f, g), 1);
    /* Remap without invalidation: the engine still uses the cached translation. */
    assert_int_equal(igpu_ggtt_write(f.g, (uint32_t)(g >> 12), gen9_ggtt_pte_encode(other)), 0);
    sdi(c, g, 2);
    fx_run_cmds(&f, IGPU_BCS, c, 4);
    assert_int_equal(fx_rd32(&f, g), 2);
    assert_int_equal(*(uint32_t *)(f.mem + other), 0);
    /* GFX_FLSH_CNTL makes the new entry visible. */
    assert_int_equal(igpu_reg_write(f.g, GEN9_GFX_FLSH_CNTL, GEN9_GFX_FLSH_CNTL_EN), 0);
    sdi(c, g, 3);
    fx_run_cmds(&f, IGPU_BCS, c, 4);
    assert_int_equal(*(uint32_t *)(f.mem + other), 3);
    assert_int_equal(fx_rd32(&f, g), 2);
    fx_fini(&f);
}

static void test_flush_dw_invalidates_tlb(void **state)
{
    struct fx f;
    uint32_t c[12];
    const uint64_t g = FX_DATA + 0x5000;
    const uint64_t other = fx_pa(FX_DATA + 0x9000);
    (void)state;
    fx_init(&f);
    sdi(c, g, 1);
    fx_run_cmds(&f, IGPU_BCS, c, 4);
    assert_int_equal(igpu_ggtt_write(f.g, (uint32_t)(g >> 12), gen9_ggtt_pte_encode(other)), 0);
    c[0] = GEN9_MI_FLUSH_DW | GEN9_MI_FLUSH_DW_INVALIDATE_TLB;
    c[1] = c[2] = c[3] = 0;
    sdi(c + 4, g, 4);
    fx_run_cmds(&f, IGPU_BCS, c, 8);
    assert_null(igpu_model_fault(f.m, IGPU_BCS));
    assert_int_equal(*(uint32_t *)(f.mem + other), 4);
    fx_fini(&f);
}

static void test_ggtt_window_in_bar0(void **state)
{
    struct fx f;
    uint64_t pte;
    const uint32_t idx = 77, reg = GEN9_GGTT_BAR0_OFFSET + idx * 8;
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_reg_write(f.g, reg, 0xABC000 | 1), 0);
    assert_int_equal(igpu_reg_write(f.g, reg + 4, 0x12), 0);
    assert_int_equal(igpu_ggtt_read(f.g, idx, &pte), 0);
    assert_int_equal(pte, 0x1200ABC001ull);
    assert_int_equal(fx_reg(&f, reg + 4), 0x12);
    assert_int_equal(fx_reg(&f, reg), 0xABC001);
    /* Past the configured GGTT, and past BAR0. */
    assert_int_equal(igpu_reg_write(f.g, GEN9_GGTT_BAR0_OFFSET + FX_ENTRIES * 8, 0), IGPU_ERANGE);
    assert_int_equal(igpu_reg_write(f.g, GEN9_GTTMMADR_SIZE, 0), IGPU_ERANGE);
    fx_fini(&f);
}

static void test_gsm_read_failure_faults_engine(void **state)
{
    struct fx f;
    uint32_t c[4];
    const uint64_t g = FX_DATA + 0x6000;
    (void)state;
    fx_init(&f);
    /* The engine cannot even read the entry for g. */
    f.deny_lo = (g >> 12) * 8;
    f.deny_hi = f.deny_lo + 8;
    sdi(c, g, 1);
    fx_run_cmds(&f, IGPU_BCS, c, 4);
    assert_int_equal(igpu_model_fault(f.m, IGPU_BCS)->reason, IGPU_FAULT_MEMORY);
    fx_fini(&f);
}

/* Linear test pattern: 32-bit words identifying (x, y). */
static uint32_t pat(uint32_t x, uint32_t y)
{
    return (y << 16) | x;
}

static void test_x_tiled_aperture(void **state)
{
    struct fx f;
    const uint32_t pitch = 1024, rows = 16, start = FX_DATA + 0x40000;
    uint32_t *lin = malloc((size_t)pitch * rows);
    (void)state;
    assert_non_null(lin);
    fx_init(&f);
    for (uint32_t y = 0; y < rows; y++)
        for (uint32_t x = 0; x < pitch / 4; x++)
            lin[y * (pitch / 4) + x] = pat(x, y);
    assert_int_equal(igpu_fence_write(f.g, 3, gen9_fence_encode(start, pitch * rows, pitch, false)),
                     0);
    assert_int_equal(igpu_model_aperture_write(f.m, start, lin, (size_t)pitch * rows), 0);
    /* Forward from the PRM: tile (tr, tc) is 4 KiB at start + (tr * 2 + tc) * 4096; its row
     * r holds linear row tr * 8 + r, bytes tc * 512 .. + 512. */
    for (uint32_t tr = 0; tr < 2; tr++)
        for (uint32_t tc = 0; tc < 2; tc++)
            for (uint32_t r = 0; r < 8; r++) {
                const uint8_t *tile = f.mem + fx_pa(start + (tr * 2 + tc) * 4096u) + r * 512u;
                const uint8_t *src = (const uint8_t *)lin + (tr * 8 + r) * pitch + tc * 512u;
                assert_memory_equal(tile, src, 512);
            }
    /* Reading back through the fence gives the linear picture; without it, the tiles. */
    memset(lin, 0, (size_t)pitch * rows);
    assert_int_equal(igpu_model_aperture_read(f.m, start + 3, (uint8_t *)lin + 3,
                                              (size_t)pitch * rows - 3),
                     0);
    for (uint32_t y = 0; y < rows; y++)
        for (uint32_t x = 1; x < pitch / 4; x++)
            assert_int_equal(lin[y * (pitch / 4) + x], pat(x, y));
    assert_int_equal(igpu_fence_write(f.g, 3, 0), 0);
    assert_int_equal(igpu_model_aperture_read(f.m, start + 4096, lin, 4), 0);
    assert_int_equal(lin[0], pat(128, 0)); /* tile (0,1) row 0 starts at x = 512 B */
    free(lin);
    fx_fini(&f);
}

static void test_y_tiled_aperture_via_registers(void **state)
{
    struct fx f;
    const uint32_t pitch = 256, rows = 64, start = FX_DATA + 0x80000;
    uint32_t *lin = malloc((size_t)pitch * rows);
    uint64_t v = gen9_fence_encode(start, pitch * rows, pitch, true);
    (void)state;
    assert_non_null(lin);
    fx_init(&f);
    for (uint32_t y = 0; y < rows; y++)
        for (uint32_t x = 0; x < pitch / 4; x++)
            lin[y * (pitch / 4) + x] = pat(x, y);
    /* Program fence 31 the way i915 does: low = 0, high, low. */
    assert_int_equal(igpu_reg_write(f.g, GEN9_FENCE_REG_LO(31), 0), 0);
    assert_int_equal(igpu_reg_write(f.g, GEN9_FENCE_REG_HI(31), (uint32_t)(v >> 32)), 0);
    assert_int_equal(igpu_reg_write(f.g, GEN9_FENCE_REG_LO(31), (uint32_t)v), 0);
    assert_int_equal(fx_reg(&f, GEN9_FENCE_REG_HI(31)), (uint32_t)(v >> 32));
    assert_int_equal(igpu_model_aperture_write(f.m, start, lin, (size_t)pitch * rows), 0);
    /* Forward from the PRM: tile (tr, tc); OWord column k of it is 512 bytes at k * 512, and
     * its row r (16 bytes at k * 512 + r * 16) holds linear row tr * 32 + r, bytes
     * tc * 128 + k * 16 .. + 16. */
    for (uint32_t tr = 0; tr < 2; tr++)
        for (uint32_t tc = 0; tc < 2; tc++)
            for (uint32_t k = 0; k < 8; k++)
                for (uint32_t r = 0; r < 32; r++) {
                    const uint8_t *ow = f.mem + fx_pa(start + (tr * 2 + tc) * 4096u) + k * 512u +
                                        r * 16u;
                    const uint8_t *src = (const uint8_t *)lin + (tr * 32 + r) * pitch + tc * 128u +
                                         k * 16u;
                    assert_memory_equal(ow, src, 16);
                }
    free(lin);
    fx_fini(&f);
}

static void test_aperture_limits(void **state)
{
    struct fx f;
    uint8_t b[8];
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_model_aperture_read(f.m, (uint64_t)FX_ENTRIES * 4096 - 4, b, 8),
                     IGPU_ERANGE);
    assert_int_equal(igpu_ggtt_write(f.g, 9, 0), 0);
    assert_int_equal(igpu_ggtt_flush(f.g), 0);
    assert_int_equal(igpu_model_aperture_read(f.m, 9 * 4096, b, 8), IGPU_EFAULT);
    /* A fence with a pitch that is not whole X tiles, or that is not whole tile rows, is not
     * de-tiled (its result would lie outside the fence): refused, never guessed. */
    assert_int_equal(igpu_fence_write(f.g, 0, gen9_fence_encode(FX_DATA, 8192, 128, false)), 0);
    assert_int_equal(igpu_model_aperture_read(f.m, FX_DATA, b, 8), IGPU_EUNSUPPORTED);
    assert_int_equal(igpu_fence_write(f.g, 0, gen9_fence_encode(FX_DATA, 8192, 8192, false)), 0);
    assert_int_equal(igpu_model_aperture_read(f.m, FX_DATA, b, 8), IGPU_EUNSUPPORTED);
    assert_int_equal(igpu_fence_write(f.g, 0, 0), 0);
    assert_int_equal(igpu_fence_write(f.g, GEN9_FENCE_COUNT, 0), IGPU_ERANGE);
    fx_fini(&f);
}

static void test_tiled_offset_values(void **state)
{
    uint32_t contig;
    (void)state;
    /* X, pitch 1024: byte (513, 9) is in tile row 1, tile column 1, row 1 of the tile. */
    assert_int_equal(igpu_tiled_offset(IGPU_TILING_X, 1024, 513, 9, &contig),
                     8192 + 4096 + 512 + 1);
    assert_int_equal(contig, 511);
    /* Y, pitch 256: byte (130, 33): tile row 1 (8192), tile column 1 (4096), OWord 0, row 1. */
    assert_int_equal(igpu_tiled_offset(IGPU_TILING_Y, 256, 130, 33, &contig), 8192 + 4096 + 16 + 2);
    assert_int_equal(contig, 14);
    assert_int_equal(igpu_tiled_offset(IGPU_TILING_NONE, 100, 7, 3, &contig), 307);
    assert_int_equal(contig, 93);
}

/* The fence shapes gen9_fence_shape_ok() accepts de-tile every byte of the fence inside it,
 * for every pitch the register can hold and either tiling; one more row or column of tiles
 * than the size holds (the shapes it refuses) lands outside. */
static void test_fence_shapes_detile_inside(void **state)
{
    (void)state;
    for (unsigned y = 0; y < 2; y++) {
        enum igpu_tiling t = y ? IGPU_TILING_Y : IGPU_TILING_X;
        uint32_t tw = y ? GEN9_TILE_Y_WIDTH : GEN9_TILE_X_WIDTH;
        uint32_t th = y ? GEN9_TILE_Y_HEIGHT : GEN9_TILE_X_HEIGHT;
        for (uint32_t pitch = 128; pitch <= GEN9_FENCE_MAX_PITCH_VAL * 128u; pitch += 128) {
            for (uint32_t rows = 1; rows <= 3; rows++) {
                uint64_t size = (uint64_t)pitch * th * rows, max = 0;
                bool ok = gen9_fence_shape_ok(size, pitch, y);
                assert_int_equal(ok, pitch % tw == 0);
                /* the highest offsets: the last byte of every tile column, all rows of the
                 * last tile row */
                for (uint32_t r = th * (rows - 1); r < th * rows; r++)
                    for (uint32_t x = tw - 1; x < pitch + tw - 1; x += tw) {
                        uint32_t xx = x < pitch ? x : pitch - 1;
                        uint64_t o = igpu_tiled_offset(t, pitch, xx, r, NULL);
                        if (o > max)
                            max = o;
                    }
                if (ok)
                    assert_true(max < size);
                else
                    assert_true(max >= size); /* the shape it refuses escapes */
            }
            /* a size that is not whole tile rows is refused */
            if ((uint64_t)pitch * th > 4096)
                assert_false(gen9_fence_shape_ok((uint64_t)pitch * th + 4096, pitch, y));
        }
    }
    /* the attack: 256 KiB X-tiled with a 256 KiB pitch reaches 2 MiB */
    assert_false(gen9_fence_shape_ok(256u << 10, 256u << 10, false));
    assert_int_equal(igpu_tiled_offset(IGPU_TILING_X, 256u << 10, (256u << 10) - 1, 0, NULL),
                     511u * 4096u + 511u);
}

static void test_register_file_refusals(void **state)
{
    struct fx f;
    uint32_t v;
    (void)state;
    fx_init(&f);
    assert_int_equal(igpu_reg_read(f.g, 0x12340, &v), IGPU_EUNSUPPORTED);
    assert_int_equal(igpu_reg_write(f.g, 0x12340, 1), IGPU_EUNSUPPORTED);
    assert_int_equal(igpu_reg_read(f.g, GEN9_RCS_BASE + 0x30 + 2, &v), IGPU_EINVAL);
    assert_int_equal(igpu_reg_read(f.g, GEN9_GT_ISR(0), &v), IGPU_EUNSUPPORTED);
    /* Forcewake: a masked request is acknowledged at once. */
    assert_int_equal(igpu_reg_write(f.g, GEN9_FORCEWAKE_GT,
                                    GEN9_MASKED_BIT_ENABLE(GEN9_FORCEWAKE_KERNEL)),
                     0);
    assert_int_equal(fx_reg(&f, GEN9_FORCEWAKE_ACK_GT) & GEN9_FORCEWAKE_KERNEL,
                     GEN9_FORCEWAKE_KERNEL);
    assert_int_equal(fx_reg(&f, GEN9_FORCEWAKE_ACK_RENDER) & GEN9_FORCEWAKE_KERNEL, 0);
    assert_int_equal(igpu_reg_write(f.g, GEN9_FORCEWAKE_GT,
                                    GEN9_MASKED_BIT_DISABLE(GEN9_FORCEWAKE_KERNEL)),
                     0);
    assert_int_equal(fx_reg(&f, GEN9_FORCEWAKE_ACK_GT) & GEN9_FORCEWAKE_KERNEL, 0);
    /* Reset handshake: ready follows the request. */
    assert_int_equal(igpu_reg_write(f.g, GEN9_RING_RESET_CTL(GEN9_BCS_BASE),
                                    GEN9_MASKED_BIT_ENABLE(GEN9_RESET_CTL_REQUEST_RESET)),
                     0);
    assert_true(fx_reg(&f, GEN9_RING_RESET_CTL(GEN9_BCS_BASE)) & GEN9_RESET_CTL_READY_TO_RESET);
    fx_fini(&f);
}

static void test_create_rejects_bad_config(void **state)
{
    struct igpu_model_config cfg;
    struct igpu_model *m = (struct igpu_model *)1;
    uint8_t mem[64];
    (void)state;
    igpu_model_config_defaults(&cfg);
    cfg.mem.read = fx_read;
    cfg.mem.write = fx_write;
    cfg.mem.ctx = mem;
    cfg.ggtt_entries = 0;
    assert_int_equal(igpu_model_create(&cfg, &m), IGPU_EINVAL);
    cfg.ggtt_entries = GEN9_GGTT_MAX_ENTRIES + 1;
    assert_int_equal(igpu_model_create(&cfg, &m), IGPU_EINVAL);
    cfg.ggtt_entries = 16; /* 64 KiB of GM < 256 MiB aperture */
    assert_int_equal(igpu_model_create(&cfg, &m), IGPU_EINVAL);
    cfg.aperture_size = 65536;
    cfg.cost.cmd_ns = 0;
    assert_int_equal(igpu_model_create(&cfg, &m), IGPU_EINVAL);
    cfg.cost.cmd_ns = 1;
    cfg.mem.read = NULL;
    assert_int_equal(igpu_model_create(&cfg, &m), IGPU_EINVAL);
    cfg.mem.read = fx_read;
    assert_int_equal(igpu_model_create(&cfg, &m), 0);
    assert_int_equal(igpu_model_igpu(m)->info.ggtt_entries, 16);
    assert_int_equal(igpu_model_igpu(m)->info.device, 0x1912);
    assert_string_equal(igpu_model_igpu(m)->ops->name, "model");
    igpu_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_translation_and_non_present),
        cmocka_unit_test(test_write_run),
        cmocka_unit_test(test_translations_cached_until_flush),
        cmocka_unit_test(test_flush_dw_invalidates_tlb),
        cmocka_unit_test(test_ggtt_window_in_bar0),
        cmocka_unit_test(test_gsm_read_failure_faults_engine),
        cmocka_unit_test(test_x_tiled_aperture),
        cmocka_unit_test(test_y_tiled_aperture_via_registers),
        cmocka_unit_test(test_aperture_limits),
        cmocka_unit_test(test_tiled_offset_values),
        cmocka_unit_test(test_fence_shapes_detile_inside),
        cmocka_unit_test(test_register_file_refusals),
        cmocka_unit_test(test_create_rejects_bad_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
