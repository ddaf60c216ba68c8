/* Where the kernel and initrd go (boot/linux/linux_place.c), and each refusal with its numbers:
 * RAM too small for init_size, an initrd that does not fit below the end of RAM or
 * initrd_addr_max, a command line longer than the kernel takes, RAM reaching the framebuffer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "test_loader_fixture.h"
#include "boot/linux/linux_layout.h"
#include "boot/linux/linux_place.h"

#define MIB (1ULL << 20)

static struct bzimage_info bi;
static char err[200];

static int setup(void **state)
{
    uint8_t *img = fix_image();
    int rc = bzimage_parse(img, FIX_IMAGE_BYTES, &bi, NULL, 0);
    free(img);
    return rc;
}

static void test_debian_kernel_in_256_mib(void **state)
{
    struct linux_placement p;
    assert_int_equal(linux_place(&bi, 256 * MIB, 3 * MIB + 5, 300, &p, err, sizeof err),
                     LINUX_PLACE_OK);
    assert_int_equal(p.load_gpa, 0x1000000);
    assert_int_equal(p.entry_gpa, 0x1000200);
    assert_int_equal(p.kernel_end_gpa, 0x1000000 + FIX_INIT_SIZE);
    /* the initrd is page aligned, ends within the last page of RAM, above the kernel */
    assert_int_equal(p.initrd_gpa % 4096, 0);
    assert_int_equal(p.initrd_gpa, 256 * MIB - (3 * MIB + 4096));
    assert_true(p.initrd_gpa >= p.kernel_end_gpa);
    /* no initrd: none placed */
    assert_int_equal(linux_place(&bi, 256 * MIB, 0, 0, &p, err, sizeof err), LINUX_PLACE_OK);
    assert_int_equal(p.initrd_gpa, 0);
}

static void test_initrd_below_initrd_addr_max(void **state)
{
    struct linux_placement p;
    bi.initrd_addr_max = 0x7FFFFFF; /* 128 MiB - 1 */
    assert_int_equal(linux_place(&bi, 512 * MIB, 10 * MIB, 0, &p, err, sizeof err), LINUX_PLACE_OK);
    assert_int_equal(p.initrd_gpa + 10 * MIB, 128 * MIB);
    /* no room between the kernel's end (~80 MiB) and 128 MiB for 60 MiB */
    assert_int_equal(linux_place(&bi, 512 * MIB, 60 * MIB, 0, &p, err, sizeof err),
                     LINUX_PLACE_EINITRD);
    assert_non_null(strstr(err, "initrd of 61440 KiB does not fit"));
}

static void test_refusals(void **state)
{
    struct linux_placement p;
    /* init_size needs RAM up to 16 MiB + 63.6 MiB */
    assert_int_equal(linux_place(&bi, 64 * MIB, 0, 0, &p, err, sizeof err), LINUX_PLACE_ERAM);
    assert_string_equal(
        err, "the kernel needs RAM up to 80 MiB (loaded at 0x1000000, init_size 0x3f98000), "
             "the guest has 64 MiB");
    assert_int_equal(linux_place(&bi, 80 * MIB, 0, 0, &p, err, sizeof err), LINUX_PLACE_OK);
    /* an initrd that overruns RAM */
    assert_int_equal(linux_place(&bi, 96 * MIB, 20 * MIB, 0, &p, err, sizeof err),
                     LINUX_PLACE_EINITRD);
    assert_non_null(strstr(err, "does not fit"));
    /* the command line: cmdline_size 2047 without the NUL */
    assert_int_equal(linux_place(&bi, 256 * MIB, 0, 2047, &p, err, sizeof err), LINUX_PLACE_OK);
    assert_int_equal(linux_place(&bi, 256 * MIB, 0, 2048, &p, err, sizeof err),
                     LINUX_PLACE_ECMDLINE);
    assert_string_equal(err, "command line of 2048 bytes: the kernel takes at most 2047");
    /* RAM into the framebuffer window */
    assert_int_equal(linux_place(&bi, LINUX_FB_GPA + MIB, 0, 0, &p, err, sizeof err),
                     LINUX_PLACE_ERAM);
    assert_non_null(strstr(err, "below its framebuffer"));
    assert_int_equal(linux_place(&bi, LINUX_FB_GPA, 0, 0, &p, err, sizeof err), LINUX_PLACE_OK);
    /* a non-relocatable kernel that wants to live below 1 MiB */
    bi.relocatable = false;
    bi.pref_address = 0x80000;
    assert_int_equal(linux_place(&bi, 256 * MIB, 0, 0, &p, err, sizeof err), LINUX_PLACE_ELOAD);
}

/* A corrupt header's pref_address is any 64-bit value: an aligned one near 2^64 must be
 * refused, not wrap load + init_size around to a small end that "fits". */
static void test_pref_address_near_the_top_does_not_wrap(void **state)
{
    struct linux_placement p;
    bi.pref_address = UINT64_MAX - bi.kernel_alignment + 1; /* aligned, >= 1 MiB */
    assert_int_equal(linux_place(&bi, 256 * MIB, 0, 0, &p, err, sizeof err), LINUX_PLACE_ERAM);
    assert_non_null(strstr(err, "the guest has 256 MiB"));
    assert_int_equal(linux_ram_needed(&bi, 0), 0);
    bi.pref_address = 254 * MIB; /* aligned, inside RAM, ends past it */
    assert_int_equal(linux_place(&bi, 256 * MIB, 0, 0, &p, err, sizeof err), LINUX_PLACE_ERAM);
}

static void test_ram_needed_agrees(void **state)
{
    const uint64_t initrds[] = { 0, 1, 4096, 3 * MIB + 1, 40 * MIB };
    for (size_t i = 0; i < sizeof initrds / sizeof initrds[0]; i++) {
        uint64_t need = linux_ram_needed(&bi, initrds[i]);
        struct linux_placement p;
        assert_true(need % MIB == 0);
        assert_int_equal(linux_place(&bi, need, initrds[i], 0, &p, NULL, 0), LINUX_PLACE_OK);
        assert_int_not_equal(linux_place(&bi, need - MIB, initrds[i], 0, &p, NULL, 0),
                             LINUX_PLACE_OK);
    }
    assert_int_equal(linux_ram_needed(&bi, 0), 80 * MIB);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_debian_kernel_in_256_mib, setup),
        cmocka_unit_test_setup(test_initrd_below_initrd_addr_max, setup),
        cmocka_unit_test_setup(test_refusals, setup),
        cmocka_unit_test_setup(test_pref_address_near_the_top_does_not_wrap, setup),
        cmocka_unit_test_setup(test_ram_needed_agrees, setup),
    };
    return cmocka_run_group_tests_name("loader_place", tests, NULL, NULL);
}
