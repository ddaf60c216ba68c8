/* The PV info page must match Linux's drivers/gpu/drm/i915/i915_pvinfo.h byte for byte, or an
 * i915 guest will not recognise its vGPU.  The expected offsets below are worked out from that
 * header's field list (u64 magic; u16 version_major, version_minor; u32 vgt_id, vgt_caps,
 * rsv1[11]; avail_rs {mappable {base, size}, nonmappable {base, size}, fence_num, rsv2[3]};
 * rsv3[0x200 - 24]; rsv4; display_ready; rsv5[4]; g2v_notify; rsv6[5]; cursor_x_hot;
 * cursor_y_hot; pdp[4] {lo, hi}; execlist_context_descriptor_lo, _hi; rsv7[0x200 - 24]). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tessera/abi/vgpu.h"

#define OFF(f) offsetof(struct vgt_if, f)

static void test_i915_offsets(void **state)
{
    (void)state;
    assert_int_equal(OFF(magic), 0x000);
    assert_int_equal(OFF(version_major), 0x008);
    assert_int_equal(OFF(version_minor), 0x00a);
    assert_int_equal(OFF(vgt_id), 0x00c);
    assert_int_equal(OFF(vgt_caps), 0x010);
    assert_int_equal(OFF(avail_rs.mappable_gmadr.base), 0x040);
    assert_int_equal(OFF(avail_rs.mappable_gmadr.size), 0x044);
    assert_int_equal(OFF(avail_rs.nonmappable_gmadr.base), 0x048);
    assert_int_equal(OFF(avail_rs.nonmappable_gmadr.size), 0x04c);
    assert_int_equal(OFF(avail_rs.fence_num), 0x050);
    assert_int_equal(OFF(rsv3), 0x060);
    assert_int_equal(OFF(rsv4), 0x800);
    assert_int_equal(OFF(display_ready), 0x804);
    assert_int_equal(OFF(g2v_notify), 0x818);
    assert_int_equal(OFF(cursor_x_hot), 0x830);
    assert_int_equal(OFF(cursor_y_hot), 0x834);
    assert_int_equal(OFF(pdp[0].lo), 0x838);
    assert_int_equal(OFF(pdp[3].hi), 0x854);
    assert_int_equal(OFF(execlist_context_descriptor_lo), 0x858);
    assert_int_equal(OFF(execlist_context_descriptor_hi), 0x85c);
    assert_int_equal(sizeof(struct vgt_if), VGT_PVINFO_SIZE);
}

/* Tessera's extension stays inside i915's last reserved area (rsv7, from 0x860). */
static void test_extension_in_reserved_area(void **state)
{
    (void)state;
    assert_true(OFF(tessera_balloon) >= 0x860);
    assert_int_equal(OFF(tessera_balloon), TESSERA_BALLOON_OFFSET);
    assert_int_equal(OFF(tessera_balloon) + sizeof(struct tessera_balloon_if), VGT_PVINFO_SIZE);
    /* The balloon extension has not moved since it was published (0xFC8); re-placement's is
     * right before it. */
    assert_int_equal(TESSERA_BALLOON_OFFSET, 0xFC8);
    assert_true(OFF(tessera_move) >= 0x860);
    assert_int_equal(OFF(tessera_move), TESSERA_MOVE_OFFSET);
    assert_int_equal(OFF(tessera_move) + sizeof(struct tessera_move_if), OFF(tessera_balloon));
    /* The work extension is right before re-placement's; neither of those moved. */
    assert_int_equal(TESSERA_MOVE_OFFSET, 0xFA8);
    assert_int_equal(OFF(tessera_work), TESSERA_WORK_OFFSET);
    assert_int_equal(TESSERA_WORK_OFFSET, 0xF98);
    assert_int_equal(OFF(tessera_work) + sizeof(struct tessera_work_if), OFF(tessera_move));
    assert_true(TESSERA_G2V_BALLOON > VGT_G2V_EXECLIST_CONTEXT_DESTROY);
    assert_true(TESSERA_G2V_MOVE_READY > TESSERA_G2V_BALLOON);
    assert_int_equal(VGT_MAGIC, 0x4776544776544776ULL);
    assert_int_equal(VGT_PVINFO_PAGE, 0x78000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_i915_offsets),
        cmocka_unit_test(test_extension_in_reserved_area),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
