/*
 * The OpRegion and its VBT parsed the way i915 6.1 parses them (intel_opregion_setup(),
 * intel_bios_is_valid_vbt(), find_raw_section(), parse_general_definitions(),
 * parse_ddi_port()): the signature, no mailbox, a valid VBT at 0x400 within the region, one
 * child device of the size BDB version 186 implies, DP on port D with AUX D, not eDP (no
 * internal-connector bit), not HDMI/DVI.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vmm/vgpu/i915/display/vdisp_opregion.h"

#define DEVICE_TYPE_DISPLAYPORT_OUTPUT (1u << 2)
#define DEVICE_TYPE_TMDS_DVI_SIGNALING (1u << 4)
#define DEVICE_TYPE_INTERNAL_CONNECTOR (1u << 12)

static uint32_t u16(const uint8_t *p)
{
    return p[0] | (uint32_t)p[1] << 8;
}
static uint32_t u32(const uint8_t *p)
{
    return u16(p) | u16(p + 2) << 16;
}

/* find_raw_section(): the block with id, and its size. */
static const uint8_t *section(const uint8_t *bdb, uint8_t id, uint32_t *size)
{
    uint32_t index = u16(bdb + 18), total = u16(bdb + 20);
    while (index + 3 < total) {
        uint8_t cur = bdb[index];
        uint32_t n = u16(bdb + index + 1);
        index += 3;
        if (index + n > total)
            return NULL;
        if (cur == id) {
            *size = n;
            return bdb + index;
        }
        index += n;
    }
    return NULL;
}

static void test_opregion(void **state)
{
    (void)state;
    static uint8_t r[VDISP_OPREGION_BYTES];
    uint32_t vbt_bytes = vdisp_opregion_build(r);
    assert_memory_equal(r, "IntelGraphicsMem", 16);
    assert_int_equal(u32(r + 16), 8); /* KiB */
    assert_int_equal(r[23], 2);       /* major version */
    assert_int_equal(u32(r + 88), 0); /* mboxes: none, so no RVDA */

    /* intel_bios_is_valid_vbt() with size = OPREGION_SIZE - OPREGION_VBT_OFFSET. */
    const uint8_t *vbt = r + VDISP_OPREGION_VBT;
    size_t size = VDISP_OPREGION_BYTES - VDISP_OPREGION_VBT;
    assert_memory_equal(vbt, "$VBT", 4);
    assert_true(u16(vbt + 24) <= size);
    assert_int_equal(u16(vbt + 24), vbt_bytes);
    uint32_t bdb_off = u32(vbt + 28);
    assert_true(bdb_off + 22 <= vbt_bytes);
    const uint8_t *bdb = vbt + bdb_off;
    assert_memory_equal(bdb, "BIOS_DATA_BLOCK ", 16);
    assert_true(bdb_off + u16(bdb + 20) <= vbt_bytes);
    assert_int_equal(u16(bdb + 16), VDISP_VBT_BDB_VERSION);
    uint8_t sum = 0;
    for (uint32_t i = 0; i < vbt_bytes; i++)
        sum = (uint8_t)(sum + vbt[i]);
    assert_int_equal(sum, 0);

    /* parse_general_definitions(): version < 195 expects 33-byte children. */
    uint32_t bsize;
    const uint8_t *defs = section(bdb, 2, &bsize);
    assert_non_null(defs);
    assert_true(bsize >= 5);
    assert_int_equal(defs[4], 33);
    unsigned children = (bsize - 5) / defs[4];
    assert_int_equal(children, 1);
    const uint8_t *child = defs + 5;
    uint32_t type = u16(child + 2);
    assert_true(type & DEVICE_TYPE_DISPLAYPORT_OUTPUT);
    assert_false(type & DEVICE_TYPE_TMDS_DVI_SIGNALING); /* no HDMI connector */
    assert_false(type & DEVICE_TYPE_INTERNAL_CONNECTOR); /* not eDP */
    assert_int_equal(child[16], 9);                      /* DVO_PORT_DPD */
    assert_int_equal(child[25], 0x30);                   /* DP_AUX_D */
    assert_null(section(bdb, 1, &bsize));                /* no other block */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opregion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
