/* The module check (config/modules.h): a checked configuration against the module files it
 * names.  Kernels are synthetic bzImages: a setup header with the fields of
 * Documentation/x86/boot.rst at their offsets, sized like Debian 12's 6.1 kernel (protocol 2.15,
 * setup_sects 39, init_size 0x3f98000, pref_address 16 MiB, 2 MiB alignment). */
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

#define MIB (1u << 20)
#define KERNEL_BYTES (64u * 1024)     /* header, setup code and a stub payload */
#define DEBIAN_INIT_SIZE 0x3f98000u

static uint8_t kernel[KERNEL_BYTES];
static uint8_t elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
static uint8_t *initrd;
static char err[512];

static void put(uint8_t *p, unsigned off, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[off + i] = (uint8_t)(v >> (8 * i));
}

/* A bzImage header like Debian's 6.1 (research §1). */
static void make_kernel(void)
{
    memset(kernel, 0, sizeof kernel);
    kernel[0x1f1] = 39;                         /* setup_sects */
    put(kernel, 0x1fe, 0xAA55, 2);              /* boot_flag */
    memcpy(kernel + 0x202, "HdrS", 4);
    put(kernel, 0x206, 0x020f, 2);              /* version 2.15 */
    put(kernel, 0x22c, 0x7fffffff, 4);          /* initrd_addr_max */
    put(kernel, 0x230, 2 * MIB, 4);             /* kernel_alignment */
    kernel[0x234] = 1;                          /* relocatable_kernel */
    put(kernel, 0x236, 0x7f, 2);                /* xloadflags: XLF_KERNEL_64 and more */
    put(kernel, 0x238, 2047, 4);                /* cmdline_size */
    put(kernel, 0x258, 16 * MIB, 8);            /* pref_address */
    put(kernel, 0x260, DEBIAN_INIT_SIZE, 4);    /* init_size */
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
    mods[n_mods++] = (struct cfg_module){ "vmlinuz", kernel, sizeof kernel };
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
    make_kernel();
    modules(MIB);
    err[0] = '\0';
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(initrd);
    initrd = NULL;
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
    assert_int_equal(fit.kernel.protocol, 0x020f);
    assert_int_equal(fit.kernel.setup_sects, 39);
    assert_int_equal(fit.kernel.init_size, DEBIAN_INIT_SIZE);
    assert_int_equal(fit.kernel.cmdline_size, 2047);
    assert_int_equal(fit.ram_bytes, 256ull * MIB);
    assert_int_equal(fit.kernel_start, 16 * MIB);
    assert_int_equal(fit.kernel_end, 16 * MIB + DEBIAN_INIT_SIZE);
    assert_int_equal(fit.initrd_bytes, MIB);
    assert_int_equal(fit.initrd_limit, 256ull * MIB);     /* RAM is below initrd_addr_max */
    assert_int_equal(cfg_check_modules(c, mods, n_mods, err, sizeof err), CFG_OK);

    char line[300];
    cfg_linux_fit_summary(c, 0, &fit, line, sizeof line);
    assert_string_equal(line, "kiosk0: kernel vmlinuz (boot protocol 2.15) at 16.0..79.6 MiB, "
                              "initrd initramfs 1.0 MiB in 79.6..256.0 MiB, RAM 256 MiB");
}

static void test_pref_address_is_rounded_up_to_the_alignment(void **state)
{
    (void)state;
    put(kernel, 0x258, 16 * MIB + 4096, 8);
    struct cfg_linux_fit fit;
    assert_int_equal(cfg_check_guest_modules(config(256), 0, mods, n_mods, &fit, err, sizeof err),
                     CFG_OK);
    assert_int_equal(fit.kernel_start, 18 * MIB);
}

static void test_initrd_that_ends_exactly_at_the_limit_fits(void **state)
{
    (void)state;
    /* kernel 16 MiB + 48 MiB = 64 MiB; 128 MiB of RAM leaves exactly 64 MiB */
    put(kernel, 0x260, 48 * MIB, 4);
    modules(64 * MIB);
    assert_int_equal(cfg_check_guest_modules(config(128), 0, mods, n_mods, NULL, err, sizeof err),
                     CFG_OK);
    modules(64 * MIB + 1);
    REFUSED(config(128), 0, "/guests/kiosk0: initrd: 'initramfs' (64.1 MiB) does not fit",
            "ends at 64.0 MiB", "below 128.0 MiB (the end of ram-mib)", "leaves 64.0 MiB");
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
    struct cfg_module only[2] = { { "vmlinuz", kernel, sizeof kernel }, { "hello", elf, sizeof elf } };
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
    mods[n_mods++] = (struct cfg_module){ "vmlinuz", kernel, sizeof kernel };
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
    mods[2] = (struct cfg_module){ "hello", kernel, sizeof kernel };
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
    REFUSED(c, 0, "/guests/kiosk0: image: 'vmlinuz': not a Linux bzImage: 64 bytes, shorter "
                  "than its setup header");
    static uint8_t zeros[4096];
    mods[0] = (struct cfg_module){ "vmlinuz", zeros, sizeof zeros };
    REFUSED(c, 0, "'vmlinuz': not a Linux bzImage: no \"HdrS\" at 0x202");
    put(kernel, 0x1fe, 0, 2);
    mods[0] = (struct cfg_module){ "vmlinuz", kernel, sizeof kernel };
    REFUSED(c, 0, "no boot flag 0xAA55");
}

static void test_old_boot_protocol_is_refused_with_its_version(void **state)
{
    (void)state;
    put(kernel, 0x206, 0x020a, 2);
    REFUSED(config(256), 0, "/guests/kiosk0: image: 'vmlinuz': boot protocol 2.10, Tessera needs "
                            "2.12 or later");
    put(kernel, 0x206, 0x020c, 2);
    assert_int_equal(cfg_check_guest_modules(config(256), 0, mods, n_mods, NULL, err, sizeof err),
                     CFG_OK);
}

static void test_truncated_and_corrupt_headers_are_refused(void **state)
{
    (void)state;
    const struct cfg *c = config(256);
    mods[0].len = 40 * 512;         /* exactly the setup code: no payload */
    REFUSED(c, 0, "'vmlinuz': truncated: 20480 bytes, but its setup code alone takes 20480 "
                  "(setup_sects 39)");
    mods[0].len = sizeof kernel;
    kernel[0x1f1] = 0;              /* 0 means 4 sectors (boot.rst) */
    struct cfg_linux_fit fit;
    assert_int_equal(cfg_check_guest_modules(c, 0, mods, n_mods, &fit, err, sizeof err), CFG_OK);
    mods[0].len = 5 * 512;
    REFUSED(c, 0, "setup code alone takes 2560 (setup_sects 4)");
    mods[0].len = sizeof kernel;
    put(kernel, 0x236, 0x7e, 2);
    REFUSED(c, 0, "'vmlinuz': not a 64-bit kernel: xloadflags lacks XLF_KERNEL_64");
    put(kernel, 0x236, 0x7f, 2);
    put(kernel, 0x260, 0, 4);
    REFUSED(c, 0, "corrupt setup header: init_size is 0");
    put(kernel, 0x260, DEBIAN_INIT_SIZE, 4);
    put(kernel, 0x230, 3 * MIB, 4);
    REFUSED(c, 0, "kernel_alignment is not a power of two");
    put(kernel, 0x230, 0, 4);
    REFUSED(c, 0, "kernel_alignment is not a power of two");
}

/* ---- what does not fit ----------------------------------------------------------------------- */

static void test_ram_below_the_kernels_init_size_is_refused(void **state)
{
    (void)state;
    put(kernel, 0x260, 120 * MIB, 4);
    REFUSED(config(128), 0, "/guests/kiosk0: ram-mib: kernel 'vmlinuz' needs 136.0 MiB (loaded at "
                            "16.0 MiB, init_size 120.0 MiB), the guest has 128 MiB");
    assert_int_equal(cfg_check_guest_modules(config(137), 0, mods, n_mods, NULL, err, sizeof err),
                     CFG_OK);
}

static void test_absurd_pref_address_does_not_wrap_around(void **state)
{
    (void)state;
    put(kernel, 0x258, 0xFFFFFFFFFFFFF000ull, 8);
    REFUSED(config(256), 0, "/guests/kiosk0: ram-mib: kernel 'vmlinuz' needs");
}

static void test_initrd_too_big_for_ram_is_refused(void **state)
{
    (void)state;
    modules(200 * MIB);
    REFUSED(config(256), 0, "/guests/kiosk0: initrd: 'initramfs' (200.0 MiB) does not fit: it "
                            "must lie above the kernel (which ends at 79.6 MiB) and below 256.0 "
                            "MiB (the end of ram-mib), which leaves 176.4 MiB");
    assert_int_equal(cfg_check_guest_modules(config(512), 0, mods, n_mods, NULL, err, sizeof err),
                     CFG_OK);
}

static void test_initrd_above_initrd_addr_max_is_refused(void **state)
{
    (void)state;
    put(kernel, 0x22c, 96 * MIB - 1, 4);        /* initrd below 96 MiB */
    modules(20 * MIB);
    REFUSED(config(256), 0, "/guests/kiosk0: initrd: 'initramfs' (20.0 MiB) does not fit",
            "below 96.0 MiB (the kernel's initrd_addr_max), which leaves 16.4 MiB");
    modules(16 * MIB);
    struct cfg_linux_fit fit;
    assert_int_equal(cfg_check_guest_modules(config(256), 0, mods, n_mods, &fit, err, sizeof err),
                     CFG_OK);
    assert_int_equal(fit.initrd_limit, 96 * MIB);
}

static void test_command_line_beyond_cmdline_size_is_refused(void **state)
{
    (void)state;
    put(kernel, 0x238, 255, 4);
    struct t_cfg *t = t_base(1);
    t_str(t, "guests/kiosk0", "kernel", "linux");
    t_str(t, "guests/kiosk0", "image", "vmlinuz");
    t_u32(t, "guests/kiosk0", "ram-mib", 256);
    char line[300];
    memset(line, 'x', 256);
    line[256] = '\0';
    t_str(t, "guests/kiosk0", "cmdline", line);
    accept(t);
    REFUSED(&t_out, 0, "/guests/kiosk0: cmdline: 256 characters, kernel 'vmlinuz' takes at most "
                       "255 (its cmdline_size)");
    put(kernel, 0x238, 256, 4);
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
        T(test_pref_address_is_rounded_up_to_the_alignment),
        T(test_initrd_that_ends_exactly_at_the_limit_fits),
        T(test_a_linux_guest_without_initrd_needs_none),
        T(test_missing_modules_are_named),
        T(test_empty_initrd_is_refused),
        T(test_tessera_guest_needs_an_elf64_image),
        T(test_linux_guest_needs_a_bzimage),
        T(test_old_boot_protocol_is_refused_with_its_version),
        T(test_truncated_and_corrupt_headers_are_refused),
        T(test_ram_below_the_kernels_init_size_is_refused),
        T(test_absurd_pref_address_does_not_wrap_around),
        T(test_initrd_too_big_for_ram_is_refused),
        T(test_initrd_above_initrd_addr_max_is_refused),
        T(test_command_line_beyond_cmdline_size_is_refused),
        T(test_no_such_guest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
