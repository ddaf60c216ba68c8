/* The Linux guest's properties in the configuration alone (config/check_kind.c): `kernel`,
 * `initrd`, `framebuffer-px` and the long command line are read; what cannot work is refused
 * naming the node and property. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>

#include "config/config.h"
#include "tessera/abi/guest.h"
#include "test_config_fixture.h"
#include "test_config_expect.h"

#define LINUX_NODE "guests/kiosk0"

/* Four guests; kiosk0 is a Linux guest with 256 MiB, a kernel tag and an initrd tag. */
static struct t_cfg *linux_base(void)
{
    struct t_cfg *t = t_base(4);
    t_str(t, LINUX_NODE, "kernel", "linux");
    t_str(t, LINUX_NODE, "image", "vmlinuz");
    t_str(t, LINUX_NODE, "initrd", "initramfs");
    t_u32(t, LINUX_NODE, "ram-mib", 256);
    return t;
}

/* A string of n characters "aaaa...". */
static const char *long_string(size_t n)
{
    static char s[CFG_CMDLINE_MAX + 32];
    assert_true(n < sizeof s);
    memset(s, 'a', n);
    s[n] = '\0';
    return s;
}

static void test_linux_guest_is_read_completely(void **state)
{
    (void)state;
    struct t_cfg *t = linux_base();
    t_str(t, LINUX_NODE, "cmdline", long_string(CFG_CMDLINE_MAX - 1));
    accept(t);
    const struct cfg_guest *g = &t_out.guest[0];
    assert_int_equal(g->kind, CFG_GUEST_LINUX);
    assert_string_equal(g->image, "vmlinuz");
    assert_string_equal(g->initrd, "initramfs");
    assert_int_equal(g->ram_mib, 256);
    assert_int_equal(strlen(g->cmdline), CFG_CMDLINE_MAX - 1);
    /* framebuffer-px defaults to the tile's size */
    assert_int_equal(g->fb_width_px, 512);
    assert_int_equal(g->fb_height_px, 384);
    /* the others stay Tessera guests, with no framebuffer of their own */
    assert_int_equal(t_out.guest[1].kind, CFG_GUEST_TESSERA);
    assert_string_equal(t_out.guest[1].initrd, "");
    assert_int_equal(t_out.guest[1].fb_width_px, 0);
    assert_string_equal(cfg_guest_kind_name(CFG_GUEST_LINUX), "linux");
    assert_string_equal(cfg_guest_kind_name(CFG_GUEST_TESSERA), "tessera");
    assert_string_equal(cfg_guest_kind_name(7), "?");
}

static void test_explicit_kernel_tessera_and_framebuffer_size(void **state)
{
    (void)state;
    struct t_cfg *t = linux_base();
    t_cells(t, LINUX_NODE, "framebuffer-px", 2, 1024, 768, 0, 0);
    t_str(t, "guests/kiosk1", "kernel", "tessera");
    t_drop(t, LINUX_NODE, "initrd"); /* an initrd is optional (a built-in initramfs) */
    accept(t);
    assert_int_equal(t_out.guest[0].fb_width_px, 1024);
    assert_int_equal(t_out.guest[0].fb_height_px, 768);
    assert_string_equal(t_out.guest[0].initrd, "");
    assert_int_equal(t_out.guest[1].kind, CFG_GUEST_TESSERA);
}

static void test_summary_names_kernel_initrd_and_framebuffer(void **state)
{
    (void)state;
    char line[CFG_CMDLINE_MAX + 200];
    accept(linux_base());
    cfg_guest_summary(&t_out, 0, line, sizeof line);
    assert_non_null(strstr(line, "guest 0 kiosk0: linux image vmlinuz, initrd initramfs, "
                                 "framebuffer 512x384, RAM 256 MiB"));
    cfg_guest_summary(&t_out, 1, line, sizeof line);
    assert_non_null(strstr(line, "guest 1 kiosk1: image hello, RAM 32 MiB"));
    struct t_cfg *t = linux_base();
    t_drop(t, LINUX_NODE, "initrd");
    accept(t);
    cfg_guest_summary(&t_out, 0, line, sizeof line);
    assert_non_null(strstr(line, "initrd none"));
}

/* A Linux guest may have several vCPUs, one per cell of `cpus`, each on a CPU of its own. */
static void test_linux_guest_with_several_vcpus(void **state)
{
    (void)state;
    struct t_cfg *t = linux_base();
    t_cells(t, LINUX_NODE, "cpus", 2, 2, 3, 0, 0);
    accept(t);
    assert_int_equal(t_out.guest[0].cpus.n, 2);
    assert_int_equal(t_out.guest[0].cpus.cpu[0], 2);
    assert_int_equal(t_out.guest[0].cpus.cpu[1], 3);
    assert_int_equal(t_out.guest[1].cpus.n, 1);
    char line[600];
    cfg_guest_summary(&t_out, 0, line, sizeof line);
    assert_non_null(strstr(line, ", cpus 2 3,"));
    t = linux_base();
    t_cells(t, LINUX_NODE, "cpus", 4, 0, 1, 2, 3);
    accept(t);
    assert_int_equal(t_out.guest[0].cpus.n, 4);
    cfg_guest_summary(&t_out, 0, line, sizeof line);
    assert_non_null(strstr(line, ", cpus 0 1 2 3,"));
}

static void test_rejects_unknown_kernel(void **state)
{
    (void)state;
    struct t_cfg *t = linux_base();
    t_str(t, LINUX_NODE, "kernel", "Linux");
    REJECT(t, "/guests/kiosk0: kernel: expected one of \"tessera\", \"linux\"", "got \"Linux\"");
}

static void test_rejects_linux_guest_below_its_floor(void **state)
{
    (void)state;
    struct t_cfg *t = linux_base();
    t_u32(t, LINUX_NODE, "ram-mib", CFG_LINUX_RAM_MIN_MIB - 1);
    REJECT(t, "/guests/kiosk0: ram-mib: a Linux guest needs at least 128 MiB", "got 127");
    t_u32(t, LINUX_NODE, "ram-mib", CFG_LINUX_RAM_MIN_MIB);
    accept(t);
}

static void test_rejects_initrd_on_a_tessera_guest(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_str(t, "guests/kiosk1", "initrd", "initramfs");
    REJECT(t, "/guests/kiosk1: initrd: only a Linux guest (kernel = \"linux\") takes an initrd");
}

static void test_rejects_framebuffer_on_a_tessera_guest(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_cells(t, "guests/kiosk1", "framebuffer-px", 2, 512, 384, 0, 0);
    REJECT(t, "/guests/kiosk1: framebuffer-px: only a Linux guest");
}

static void test_rejects_malformed_framebuffer_sizes(void **state)
{
    (void)state;
    struct t_cfg *t = linux_base();
    t_u32(t, LINUX_NODE, "framebuffer-px", 1024);
    REJECT(t, "/guests/kiosk0: framebuffer-px: expected two cells <width height>", "got 4 bytes");
    t_cells(t, LINUX_NODE, "framebuffer-px", 2, 8, 768, 0, 0);
    REJECT(t, "/guests/kiosk0: framebuffer-px: width 8: expected 16..8192 pixels");
    t_cells(t, LINUX_NODE, "framebuffer-px", 2, 1024, 9000, 0, 0);
    REJECT(t, "/guests/kiosk0: framebuffer-px: height 9000: expected 16..8192 pixels");
}

static void test_rejects_framebuffer_larger_than_32_mib(void **state)
{
    (void)state;
    struct t_cfg *t = linux_base();
    t_cells(t, LINUX_NODE, "framebuffer-px", 2, 4096, 2048, 0, 0); /* exactly 32 MiB */
    accept(t);
    t_cells(t, LINUX_NODE, "framebuffer-px", 2, 4096, 2049, 0, 0);
    REJECT(t, "/guests/kiosk0: framebuffer-px: 4096x2049 at 4 bytes per pixel is 32784 KiB, "
              "at most 32768 KiB");
    /* the default (the tile) is refused the same way, with a hint */
    t = linux_base();
    t_u32(t, "display", "width-px", 8192);
    t_u32(t, "display", "height-px", 8192);
    t_cells(t, LINUX_NODE, "tile-px", 4, 0, 0, 8192, 4096);
    t_cells(t, "guests/kiosk1", "tile-px", 4, 0, 4096, 512, 384);
    t_cells(t, "guests/kiosk2", "tile-px", 4, 512, 4096, 512, 384);
    t_cells(t, "guests/kiosk3", "tile-px", 4, 1024, 4096, 512, 384);
    REJECT(t, "/guests/kiosk0: framebuffer-px: 8192x4096", "defaults to the tile's size");
}

static void test_command_line_limits_by_kind(void **state)
{
    (void)state;
    struct t_cfg *t = linux_base();
    /* a Tessera guest's boot information holds TESSERA_GUEST_CMDLINE_MAX - 1 characters */
    t_str(t, "guests/kiosk1", "cmdline", long_string(TESSERA_GUEST_CMDLINE_MAX - 1));
    accept(t);
    t_str(t, "guests/kiosk1", "cmdline", long_string(TESSERA_GUEST_CMDLINE_MAX));
    REJECT(t, "/guests/kiosk1: cmdline: 256 characters; a Tessera guest's boot information "
              "holds at most 255");
    /* a Linux guest's is bounded by CFG_CMDLINE_MAX (and its kernel's cmdline_size) */
    t = linux_base();
    t_str(t, LINUX_NODE, "cmdline", long_string(CFG_CMDLINE_MAX));
    REJECT(t, "/guests/kiosk0: cmdline: expected 0..1023 characters", "got 1024");
}

static void test_typo_in_a_linux_property_is_named(void **state)
{
    (void)state;
    struct t_cfg *t = linux_base();
    t_drop(t, LINUX_NODE, "initrd");
    t_str(t, LINUX_NODE, "initd", "initramfs");
    REJECT(t, "/guests/kiosk0: initd: unknown property (did you mean \"initrd\"?)");
    t = linux_base();
    t_cells(t, LINUX_NODE, "framebuffer", 2, 512, 384, 0, 0);
    REJECT(t, "/guests/kiosk0: framebuffer: unknown property (did you mean \"framebuffer-px\"?)");
}

/* `vgpu`: "tessera" by default; "i915" for a Linux guest, named in its summary; refused for a
 * Tessera guest and for a value it does not know. */
static void test_vgpu_profile(void **state)
{
    (void)state;
    char line[CFG_CMDLINE_MAX + 200];
    accept(linux_base());
    assert_int_equal(t_out.guest[0].vgpu, CFG_VGPU_TESSERA);
    cfg_guest_summary(&t_out, 0, line, sizeof line);
    assert_null(strstr(line, "vgpu i915"));
    struct t_cfg *t = linux_base();
    t_str(t, LINUX_NODE, "vgpu", "i915");
    accept(t);
    assert_int_equal(t_out.guest[0].vgpu, CFG_VGPU_I915);
    assert_int_equal(t_out.guest[1].vgpu, CFG_VGPU_TESSERA);
    cfg_guest_summary(&t_out, 0, line, sizeof line);
    assert_non_null(strstr(line, "framebuffer 512x384, vgpu i915, RAM 256 MiB"));
    t = t_base(2);
    t_str(t, "guests/kiosk1", "vgpu", "i915");
    REJECT(t, "/guests/kiosk1: vgpu: only a Linux guest (kernel = \"linux\") runs i915");
    t = linux_base();
    t_str(t, LINUX_NODE, "vgpu", "gvt");
    REJECT(t, "/guests/kiosk0: vgpu: expected one of \"tessera\", \"i915\"", "got \"gvt\"");
}

/* `vgpu-display`: "none" by default; "dp" on an i915 vGPU gives a monitor of the tile's size at
 * 60 Hz unless display-px / display-hz say otherwise, named in the summary; refused without
 * vgpu = "i915", on a Tessera guest, with monitor properties but no monitor, and for a mode
 * i915 would not take. */
static void test_vgpu_display(void **state)
{
    (void)state;
    char line[CFG_CMDLINE_MAX + 200];
    struct t_cfg *t = linux_base();
    t_str(t, LINUX_NODE, "vgpu", "i915");
    accept(t);
    assert_int_equal(t_out.guest[0].vgpu_display, CFG_DISPLAY_NONE);
    t = linux_base();
    t_str(t, LINUX_NODE, "vgpu", "i915");
    t_str(t, LINUX_NODE, "vgpu-display", "dp");
    accept(t);
    assert_int_equal(t_out.guest[0].vgpu_display, CFG_DISPLAY_DP);
    assert_int_equal(t_out.guest[0].display_width_px, 512);
    assert_int_equal(t_out.guest[0].display_height_px, 384);
    assert_int_equal(t_out.guest[0].display_hz, 60);
    cfg_guest_summary(&t_out, 0, line, sizeof line);
    assert_non_null(strstr(line, "vgpu i915, display dp 512x384@60, RAM"));
    t = linux_base();
    t_str(t, LINUX_NODE, "vgpu", "i915");
    t_str(t, LINUX_NODE, "vgpu-display", "dp");
    t_cells(t, LINUX_NODE, "display-px", 2, 1024, 768, 0, 0);
    t_u32(t, LINUX_NODE, "display-hz", 20);
    accept(t);
    assert_int_equal(t_out.guest[0].display_width_px, 1024);
    assert_int_equal(t_out.guest[0].display_hz, 20);
    t = linux_base();
    t_str(t, LINUX_NODE, "vgpu-display", "dp");
    REJECT(t, "/guests/kiosk0: vgpu-display: a virtual monitor is part of the i915 vGPU");
    t = linux_base();
    t_str(t, LINUX_NODE, "vgpu", "i915");
    t_u32(t, LINUX_NODE, "display-hz", 30);
    REJECT(t, "/guests/kiosk0: display-px: display-px and display-hz describe the virtual monitor");
    t = linux_base();
    t_str(t, LINUX_NODE, "vgpu", "i915");
    t_str(t, LINUX_NODE, "vgpu-display", "dp");
    t_u32(t, LINUX_NODE, "display-hz", 75);
    REJECT(t, "/guests/kiosk0: display-hz: expected 10..60");
    t = linux_base();
    t_str(t, LINUX_NODE, "vgpu", "i915");
    t_str(t, LINUX_NODE, "vgpu-display", "dp");
    t_cells(t, LINUX_NODE, "display-px", 2, 5000, 768, 0, 0);
    REJECT(t, "/guests/kiosk0: display-px: 5000x768 at 60 Hz: no mode i915 accepts");
    t = t_base(2);
    t_str(t, "guests/kiosk1", "vgpu-display", "dp");
    REJECT(t, "/guests/kiosk1: vgpu-display: only an i915 vGPU");
    t = linux_base();
    t_str(t, LINUX_NODE, "vgpu", "i915");
    t_str(t, LINUX_NODE, "vgpu-display", "hdmi");
    REJECT(t, "/guests/kiosk0: vgpu-display: expected one of \"none\", \"dp\"", "got \"hdmi\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linux_guest_is_read_completely),
        cmocka_unit_test(test_explicit_kernel_tessera_and_framebuffer_size),
        cmocka_unit_test(test_summary_names_kernel_initrd_and_framebuffer),
        cmocka_unit_test(test_linux_guest_with_several_vcpus),
        cmocka_unit_test(test_rejects_unknown_kernel),
        cmocka_unit_test(test_rejects_linux_guest_below_its_floor),
        cmocka_unit_test(test_rejects_initrd_on_a_tessera_guest),
        cmocka_unit_test(test_rejects_framebuffer_on_a_tessera_guest),
        cmocka_unit_test(test_rejects_malformed_framebuffer_sizes),
        cmocka_unit_test(test_rejects_framebuffer_larger_than_32_mib),
        cmocka_unit_test(test_command_line_limits_by_kind),
        cmocka_unit_test(test_typo_in_a_linux_property_is_named),
        cmocka_unit_test(test_vgpu_profile),
        cmocka_unit_test(test_vgpu_display),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
