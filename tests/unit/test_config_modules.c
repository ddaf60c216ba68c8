/* The module check (config/modules.h): a checked configuration against the module files it
 * names.  The kernel is the loader tests' synthetic bzImage (test_loader_fixture.h: a setup
 * header like Debian 12's 6.1 kernel), and the check decides with the loader's own
 * bzimage_parse and linux_place, so these cases are about naming the guest and property; the
 * loader's tests cover every header and placement refusal. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>

#include "config/config.h"
#include "config/modules.h"
#include "test_config_fixture.h"
#include "test_config_expect.h"
#include "test_loader_fixture.h"

#define MIB (1u << 20)

static uint8_t *kernel; /* fix_image(): a header like Debian's 6.1 kernel */
static uint8_t elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
static uint8_t *initrd;
static char err[512];

static void put(uint8_t *p, unsigned off, uint64_t v, unsigned n)
{
    fix_put(p, off, v, n);
}

static struct cfg_module mods[8];
static unsigned n_mods;

/* Modules: the Linux kernel and an initrd of initrd_bytes, and "hello" for the Tessera guests. */
static void modules(size_t initrd_bytes)
{
    free(initrd);
    initrd = calloc(1, initrd_bytes ? initrd_bytes : 1);
    assert_non_null(initrd);
    n_mods = 0;
    mods[n_mods++] = (struct cfg_module){ "vmlinuz", kernel, FIX_IMAGE_BYTES };
    mods[n_mods++] = (struct cfg_module){ "initramfs", initrd, initrd_bytes };
    mods[n_mods++] = (struct cfg_module){ "hello", elf, sizeof elf };
}

/* Four guests; kiosk0 boots Linux from "vmlinuz" and "initramfs" in ram_mib. */
static const struct cfg *config(uint32_t ram_mib)
{
    struct t_cfg *t = t_base(4);
    t_str(t, "guests/kiosk0", "kernel", "linux");
    t_str(t, "guests/kiosk0", "image", "vmlinuz");
    t_str(t, "guests/kiosk0", "initrd", "initramfs");
    t_u32(t, "guests/kiosk0", "ram-mib", ram_mib);
    t_u32(t, "appliance", "ram-mib", 16384);
    accept(t);
    return &t_out;
}

static int setup(void **state)
{
    (void)state;
    free(kernel);
    kernel = fix_image();
    assert_non_null(kernel);
    modules(MIB);
    err[0] = '\0';
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(initrd);
    initrd = NULL;
    free(kernel);
    kernel = NULL;
    return 0;
}

static void refused(const struct cfg *c, unsigned id, const char *const *parts)
{
    expect_refusal(cfg_check_guest_modules(c, id, mods, n_mods, NULL, err, sizeof err), err, parts);
}
#define REFUSED(c, id, ...) refused((c), (id), (const char *const[]){ __VA_ARGS__, NULL })

/* ---- accepted ------------------------------------------------------------------------------ */

static void test_debian_like_kernel_fits_256_mib(void **state)
{
    (void)state;
    const struct cfg *c = config(256);
    struct cfg_linux_fit fit;
    assert_int_equal(cfg_check_guest_modules(c, 0, mods, n_mods, &fit, err, sizeof err), CFG_OK);
    assert_int_equal(fit.kernel.version, 0x020f);
    assert_int_equal(fit.kernel.setup_bytes, FIX_SETUP_BYTES);
    assert_int_equal(fit.kernel.init_size, FIX_INIT_SIZE);
    assert_int_equal(fit.kernel.cmdline_size, 2047);
    assert_int_equal(fit.ram_bytes, 256ull * MIB);
    assert_int_equal(fit.place.load_gpa, 16 * MIB);
    assert_int_equal(fit.place.kernel_end_gpa, 16 * MIB + FIX_INIT_SIZE);
    assert_int_equal(fit.initrd_bytes, MIB);
    assert_int_equal(fit.place.initrd_gpa, 255ull * MIB); /* as high as it goes, as at boot */
    assert_int_equal(cfg_check_modules(c, mods, n_mods, err, sizeof err), CFG_OK);

    char line[300];
    cfg_linux_fit_summary(c, 0, &fit, line, sizeof line);
    assert_string_equal(line, "kiosk0: kernel vmlinuz (boot protocol 2.15) at 16.0..79.6 MiB, "
                              "initrd initramfs 1.0 MiB at 255.0..256.0 MiB, RAM 256 MiB");
}

/* The same call the hypervisor makes at boot (linux_load.c), so both place it the same. */
static void test_the_check_places_as_the_loader_does(void **state)
{
    (void)state;
    struct bzimage_info bi;
    struct linux_placement p;
    struct cfg_linux_fit fit;
    const uint64_t sizes[] = { 1, 4096, 3 * MIB + 5, 64 * MIB };
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        modules(sizes[i]);
        assert_int_equal(cfg_check_guest_modules(config(256), 0, mods, n_mods, &fit, err,
                                                 sizeof err),
                         CFG_OK);
        assert_int_equal(bzimage_parse(kernel, FIX_IMAGE_BYTES, &bi, NULL, 0), BZ_OK);
        assert_int_equal(linux_place(&bi, 256ull * MIB, sizes[i], 0, &p, NULL, 0), LINUX_PLACE_OK);
        assert_memory_equal(&fit.place, &p, sizeof p);
    }
}

static void test_initrd_that_ends_exactly_at_the_limit_fits(void **state)
{
    (void)state;
    /* kernel 16 MiB + 48 MiB = 64 MiB; 128 MiB of RAM leaves exactly 64 MiB */
    put(kernel, BZ_INIT_SIZE, 48 * MIB, 4);
    modules(64 * MIB);
    assert_int_equal(cfg_check_guest_modules(config(128), 0, mods, n_mods, NULL, err, sizeof err),
                     CFG_OK);
    modules(64 * MIB + 1);
    REFUSED(config(128), 0,
            "/guests/kiosk0: initrd: 'initramfs' beside kernel 'vmlinuz' in 128 MiB: "
            "initrd of 65536 KiB does not fit: 65536 KiB free");
}

static void test_a_linux_guest_without_initrd_needs_none(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_str(t, "guests/kiosk0", "kernel", "linux");
    t_str(t, "guests/kiosk0", "image", "vmlinuz");
    t_u32(t, "guests/kiosk0", "ram-mib", 128);
    accept(t);
    unsigned n = 0;
    struct cfg_module only[2] = { { "vmlinuz", kernel, FIX_IMAGE_BYTES },
                                  { "hello", elf, sizeof elf } };
    n = 2;
    struct cfg_linux_fit fit;
    assert_int_equal(cfg_check_guest_modules(&t_out, 0, only, n, &fit, err, sizeof err), CFG_OK);
    assert_int_equal(fit.initrd_bytes, 0);
    char line[300];
    cfg_linux_fit_summary(&t_out, 0, &fit, line, sizeof line);
    assert_non_null(strstr(line, "no initrd, RAM 128 MiB"));
}

/* ---- missing and wrong modules --------------------------------------------------------------- */

static void test_missing_modules_are_named(void **state)
{
    (void)state;
    const struct cfg *c = config(256);
    n_mods = 0;
    REFUSED(c, 0, "/guests/kiosk0: image: no module tagged 'vmlinuz' (the guest's Linux kernel)");
    REFUSED(c, 1, "/guests/kiosk1: image: no module tagged 'hello' (the guest's ELF image)");
    mods[n_mods++] = (struct cfg_module){ "vmlinuz", kernel, FIX_IMAGE_BYTES };
    REFUSED(c, 0, "/guests/kiosk0: initrd: no module tagged 'initramfs' (the guest's initramfs)");
    /* cfg_check_modules reports the first guest that fails */
    mods[n_mods++] = (struct cfg_module){ "initramfs", initrd, MIB };
    assert_int_equal(cfg_check_modules(c, mods, n_mods, err, sizeof err), CFG_EINVALID);
    assert_non_null(strstr(err, "/guests/kiosk1: image: no module tagged 'hello'"));
}

static void test_empty_initrd_is_refused(void **state)
{
    (void)state;
    modules(0);
    REFUSED(config(256), 0, "/guests/kiosk0: initrd: module 'initramfs' is empty");
}

static void test_tessera_guest_needs_an_elf64_image(void **state)
{
    (void)state;
    const struct cfg *c = config(256);
    mods[2] = (struct cfg_module){ "hello", kernel, FIX_IMAGE_BYTES };
    REFUSED(c, 1, "/guests/kiosk1: image: 'hello' is a Linux bzImage: set kernel = \"linux\"");
    static const uint8_t elf32[8] = { 0x7f, 'E', 'L', 'F', 1 };
    mods[2] = (struct cfg_module){ "hello", elf32, sizeof elf32 };
    REFUSED(c, 1, "/guests/kiosk1: image: 'hello' is not an ELF64 image");
    mods[2] = (struct cfg_module){ "hello", elf, 3 };
    REFUSED(c, 1, "'hello' is not an ELF64 image");
}

static void test_linux_guest_needs_a_bzimage(void **state)
{
    (void)state;
    const struct cfg *c = config(256);
    mods[0] = (struct cfg_module){ "vmlinuz", elf, sizeof elf };
    REFUSED(c, 0,
            "/guests/kiosk0: image: 'vmlinuz': not a Linux bzImage Tessera can boot: "
            "truncated: 64 bytes is too short");
    static uint8_t zeros[4096];
    mods[0] = (struct cfg_module){ "vmlinuz", zeros, sizeof zeros };
    REFUSED(c, 0, "'vmlinuz': not a Linux bzImage Tessera can boot: not a bzImage");
}

/* Each reason the loader gives reaches the vendor under the guest's image property. */
static void test_header_refusals_name_the_image(void **state)
{
    (void)state;
    const struct cfg *c = config(256);
    put(kernel, BZ_VERSION, 0x020a, 2);
    REFUSED(c, 0,
            "/guests/kiosk0: image: 'vmlinuz': not a Linux bzImage Tessera can boot: "
            "boot protocol 2.10 is older than 2.12");
    put(kernel, BZ_VERSION, 0x020c, 2);
    assert_int_equal(cfg_check_guest_modules(c, 0, mods, n_mods, NULL, err, sizeof err), CFG_OK);
    mods[0].len = FIX_IMAGE_BYTES - 1;
    REFUSED(c, 0, "/guests/kiosk0: image: 'vmlinuz'", "truncated");
    mods[0].len = FIX_IMAGE_BYTES;
    put(kernel, BZ_XLOADFLAGS, 0x7e, 2);
    REFUSED(c, 0, "/guests/kiosk0: image: 'vmlinuz'", "a 32-bit kernel");
    put(kernel, BZ_XLOADFLAGS, 0x7f, 2);
    put(kernel, BZ_KERNEL_ALIGNMENT, 3 * MIB, 4);
    REFUSED(c, 0, "/guests/kiosk0: image: 'vmlinuz'",
            "kernel_alignment 0x300000 is not a power of two");
}

/* ---- what does not fit ----------------------------------------------------------------------- */

static void test_ram_below_the_kernels_init_size_is_refused(void **state)
{
    (void)state;
    put(kernel, BZ_INIT_SIZE, 120 * MIB, 4);
    REFUSED(config(128), 0,
            "/guests/kiosk0: ram-mib: kernel 'vmlinuz': the kernel needs RAM up to "
            "136 MiB (loaded at 0x1000000, init_size 0x7800000), the guest has 128 MiB");
    assert_int_equal(cfg_check_guest_modules(config(137), 0, mods, n_mods, NULL, err, sizeof err),
                     CFG_OK);
}

static void test_absurd_pref_address_does_not_wrap_around(void **state)
{
    (void)state;
    put(kernel, BZ_PREF_ADDRESS, 0xFFFFFFFFFFE00000ull, 8); /* aligned: taken as it is */
    REFUSED(config(256), 0, "/guests/kiosk0: ram-mib: kernel 'vmlinuz': the kernel needs RAM");
}

static void test_initrd_too_big_for_ram_is_refused(void **state)
{
    (void)state;
    modules(200 * MIB);
    REFUSED(config(256), 0,
            "/guests/kiosk0: initrd: 'initramfs' beside kernel 'vmlinuz' in 256 MiB: "
            "initrd of 204800 KiB does not fit");
    assert_int_equal(cfg_check_guest_modules(config(512), 0, mods, n_mods, NULL, err, sizeof err),
                     CFG_OK);
}

static void test_initrd_above_initrd_addr_max_is_refused(void **state)
{
    (void)state;
    put(kernel, BZ_INITRD_ADDR_MAX, 96 * MIB - 1, 4); /* initrd below 96 MiB */
    modules(20 * MIB);
    REFUSED(config(256), 0, "/guests/kiosk0: initrd: 'initramfs'", "does not fit", "and 0x6000000");
    modules(16 * MIB);
    struct cfg_linux_fit fit;
    assert_int_equal(cfg_check_guest_modules(config(256), 0, mods, n_mods, &fit, err, sizeof err),
                     CFG_OK);
    assert_int_equal(fit.place.initrd_gpa + 16 * MIB, 96 * MIB);
}

static void test_command_line_beyond_cmdline_size_is_refused(void **state)
{
    (void)state;
    put(kernel, BZ_CMDLINE_SIZE, 255, 4);
    struct t_cfg *t = t_base(1);
    t_str(t, "guests/kiosk0", "kernel", "linux");
    t_str(t, "guests/kiosk0", "image", "vmlinuz");
    t_u32(t, "guests/kiosk0", "ram-mib", 256);
    char line[300];
    memset(line, 'x', 256);
    line[256] = '\0';
    t_str(t, "guests/kiosk0", "cmdline", line);
    accept(t);
    REFUSED(&t_out, 0,
            "/guests/kiosk0: cmdline: kernel 'vmlinuz': command line of 256 bytes: the "
            "kernel takes at most 255");
    put(kernel, BZ_CMDLINE_SIZE, 256, 4);
    assert_int_equal(cfg_check_guest_modules(&t_out, 0, mods, n_mods, NULL, err, sizeof err),
                     CFG_OK);
}

static void test_no_such_guest(void **state)
{
    (void)state;
    const struct cfg *c = config(256);
    assert_int_equal(cfg_check_guest_modules(c, 4, mods, n_mods, NULL, err, sizeof err),
                     CFG_EINVALID);
    assert_non_null(strstr(err, "no such guest"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_debian_like_kernel_fits_256_mib),
        T(test_the_check_places_as_the_loader_does),
        T(test_initrd_that_ends_exactly_at_the_limit_fits),
        T(test_a_linux_guest_without_initrd_needs_none),
        T(test_missing_modules_are_named),
        T(test_empty_initrd_is_refused),
        T(test_tessera_guest_needs_an_elf64_image),
        T(test_linux_guest_needs_a_bzimage),
        T(test_header_refusals_name_the_image),
        T(test_ram_below_the_kernels_init_size_is_refused),
        T(test_absurd_pref_address_does_not_wrap_around),
        T(test_initrd_too_big_for_ram_is_refused),
        T(test_initrd_above_initrd_addr_max_is_refused),
        T(test_command_line_beyond_cmdline_size_is_refused),
        T(test_no_such_guest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
