/* The blob wrapper: what the tool writes is what the hypervisor loads, and each damaged part
 * (magic, version, header, size, CRC, the DTB inside) is refused with a message saying which. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>

#include "config/blob.h"
#include "test_config_fixture.h"

static unsigned char blob[T_DTB_BYTES + 64];
static size_t blob_len;

static void wrap_base(unsigned n_guests)
{
    size_t len = t_build(t_base(n_guests));
    int rc = cfg_blob_wrap(t_dtb, len, blob, sizeof blob, t_err, sizeof t_err);
    assert_int_equal(rc, (int)(CFG_BLOB_HEADER_BYTES + len));
    blob_len = (size_t)rc;
}

static void put32le(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* After editing header bytes, makes the header CRC right again so the edit itself is what the
 * loader sees. */
static void fix_header_crc(void)
{
    put32le(blob + 28, crc32_ieee(blob, 28));
}

static void expect_blob_error(size_t len, const char *part)
{
    t_err[0] = '\0';
    int rc = cfg_blob_load(blob, len, &t_out, t_err, sizeof t_err);
    if (rc != CFG_EBLOB || !strstr(t_err, part))
        print_message("rc %d, message \"%s\", expected \"%s\"\n", rc, t_err, part);
    assert_int_equal(rc, CFG_EBLOB);
    assert_non_null(strstr(t_err, part));
}

static void test_wrap_then_load_gives_the_configuration(void **state)
{
    (void)state;
    wrap_base(4);
    assert_memory_equal(blob, "TSCF", 4);
    assert_int_equal(blob[4] | blob[5] << 8, CFG_BLOB_VERSION);
    assert_int_equal(blob[6] | blob[7] << 8, CFG_BLOB_HEADER_BYTES);
    size_t dtb_len = blob_len - CFG_BLOB_HEADER_BYTES;
    assert_int_equal(blob[8] | blob[9] << 8 | blob[10] << 16 | (uint32_t)blob[11] << 24, dtb_len);
    assert_memory_equal(blob + CFG_BLOB_HEADER_BYTES, t_dtb, dtb_len);
    assert_int_equal(cfg_blob_load(blob, blob_len, &t_out, t_err, sizeof t_err), CFG_OK);
    assert_int_equal(t_out.n_guests, 4);
    assert_string_equal(t_out.guest[2].name, "kiosk2");
    assert_int_equal(t_out.dtb_bytes, dtb_len);
    assert_int_equal(t_out.dtb_crc32, crc32_ieee(t_dtb, dtb_len));
}

static void test_padding_after_the_dtb_is_ignored(void **state)
{
    (void)state;
    wrap_base(2);
    memset(blob + blob_len, 0xa5, 40);
    assert_int_equal(cfg_blob_load(blob, blob_len + 40, &t_out, t_err, sizeof t_err), CFG_OK);
}

static void test_misaligned_blob_loads(void **state)
{
    (void)state;
    static unsigned char shifted[sizeof blob + 8];
    wrap_base(2);
    memcpy(shifted + 5, blob, blob_len);
    assert_int_equal(cfg_blob_load(shifted + 5, blob_len, &t_out, t_err, sizeof t_err), CFG_OK);
    assert_int_equal(t_out.n_guests, 2);
}

static void test_rejects_short_blob(void **state)
{
    (void)state;
    wrap_base(1);
    expect_blob_error(31, "shorter than its 32-byte header");
    expect_blob_error(0, "shorter than its 32-byte header");
}

static void test_rejects_bad_magic(void **state)
{
    (void)state;
    wrap_base(1);
    blob[0] = 'X';
    expect_blob_error(blob_len, "bad magic 58 53 43 46");
}

static void test_rejects_corrupt_header(void **state)
{
    (void)state;
    wrap_base(1);
    blob[9] ^= 0x01; /* the DTB size, without fixing the header CRC */
    expect_blob_error(blob_len, "header CRC");
}

static void test_rejects_other_format_version(void **state)
{
    (void)state;
    wrap_base(1);
    blob[4] = 2;
    fix_header_crc();
    expect_blob_error(blob_len, "format version 2, this hypervisor reads version 1");
}

static void test_rejects_other_header_size(void **state)
{
    (void)state;
    wrap_base(1);
    blob[6] = 40;
    fix_header_crc();
    expect_blob_error(blob_len, "header size 40, expected 32");
}

static void test_rejects_nonzero_reserved_bytes(void **state)
{
    (void)state;
    wrap_base(1);
    blob[20] = 1;
    fix_header_crc();
    expect_blob_error(blob_len, "reserved header bytes");
}

static void test_rejects_truncated_blob(void **state)
{
    (void)state;
    wrap_base(2);
    expect_blob_error(blob_len - 1, "truncated");
}

static void test_rejects_absurd_dtb_size(void **state)
{
    (void)state;
    wrap_base(1);
    put32le(blob + 8, 0);
    fix_header_crc();
    expect_blob_error(blob_len, "DTB size 0");
    put32le(blob + 8, CFG_BLOB_MAX_DTB + 1);
    fix_header_crc();
    expect_blob_error(blob_len, "expected 1..");
}

static void test_rejects_dtb_crc_mismatch(void **state)
{
    (void)state;
    wrap_base(2);
    blob[blob_len - 20] ^= 0x40; /* a byte in the strings block */
    expect_blob_error(blob_len, "DTB CRC");
}

static void test_rejects_dtb_size_other_than_totalsize(void **state)
{
    (void)state;
    /* Wrap the DTB with 8 extra bytes: CRCs are right, but the DTB says it is shorter. */
    size_t len = t_build(t_base(1));
    memset(t_dtb + len, 0, 8);
    int rc = cfg_blob_wrap(t_dtb, len + 8, blob, sizeof blob, t_err, sizeof t_err);
    assert_true(rc > 0);
    blob_len = (size_t)rc;
    expect_blob_error(blob_len, "totalsize");
}

static void test_rejects_bad_dtb_inside_a_good_wrapper(void **state)
{
    (void)state;
    size_t len = t_build(t_base(1));
    t_dtb[3] ^= 0x01; /* DTB magic */
    int rc = cfg_blob_wrap(t_dtb, len, blob, sizeof blob, t_err, sizeof t_err);
    assert_true(rc > 0);
    expect_blob_error((size_t)rc, "DTB header: bad magic");

    len = t_build(t_base(1));
    /* last_comp_version 99: a tree no libfdt of today can read */
    t_dtb[offsetof(struct fdt_header, last_comp_version) + 3] = 99;
    rc = cfg_blob_wrap(t_dtb, len, blob, sizeof blob, t_err, sizeof t_err);
    assert_true(rc > 0);
    expect_blob_error((size_t)rc, "DTB header: unsupported DTB version");
}

static void test_semantic_errors_pass_through(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_u32(t, "guests/kiosk1", "weight", 0);
    size_t len = t_build(t);
    int rc = cfg_blob_wrap(t_dtb, len, blob, sizeof blob, t_err, sizeof t_err);
    assert_true(rc > 0);
    assert_int_equal(cfg_blob_load(blob, (size_t)rc, &t_out, t_err, sizeof t_err), CFG_EINVALID);
    assert_non_null(strstr(t_err, "/guests/kiosk1: weight: expected 1..1000"));
}

static void test_wrap_refuses_bad_arguments(void **state)
{
    (void)state;
    size_t len = t_build(t_base(1));
    assert_int_equal(cfg_blob_wrap(t_dtb, len, blob, len + 31, t_err, sizeof t_err), CFG_EBLOB);
    assert_non_null(strstr(t_err, "need"));
    assert_int_equal(cfg_blob_wrap(t_dtb, 0, blob, sizeof blob, t_err, sizeof t_err), CFG_EBLOB);
    assert_int_equal(cfg_blob_wrap(t_dtb, CFG_BLOB_MAX_DTB + 1, blob, sizeof blob, NULL, 0),
                     CFG_EBLOB);
    assert_int_equal(cfg_blob_size(100), 132);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrap_then_load_gives_the_configuration),
        cmocka_unit_test(test_padding_after_the_dtb_is_ignored),
        cmocka_unit_test(test_misaligned_blob_loads),
        cmocka_unit_test(test_rejects_short_blob),
        cmocka_unit_test(test_rejects_bad_magic),
        cmocka_unit_test(test_rejects_corrupt_header),
        cmocka_unit_test(test_rejects_other_format_version),
        cmocka_unit_test(test_rejects_other_header_size),
        cmocka_unit_test(test_rejects_nonzero_reserved_bytes),
        cmocka_unit_test(test_rejects_truncated_blob),
        cmocka_unit_test(test_rejects_absurd_dtb_size),
        cmocka_unit_test(test_rejects_dtb_crc_mismatch),
        cmocka_unit_test(test_rejects_dtb_size_other_than_totalsize),
        cmocka_unit_test(test_rejects_bad_dtb_inside_a_good_wrapper),
        cmocka_unit_test(test_semantic_errors_pass_through),
        cmocka_unit_test(test_wrap_refuses_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
