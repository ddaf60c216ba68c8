/* The readable renderings (boot log, shell `config`) and the graphics-memory parameters the
 * hypervisor derives from a checked configuration. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>

#include "config/config.h"
#include "test_config_fixture.h"

struct lines {
    int n;
    char text[80][400];
};

static void collect(void *ctx, const char *line)
{
    struct lines *l = ctx;
    assert_true(l->n < 80);
    assert_null(strchr(line, '\n'));
    snprintf(l->text[l->n++], sizeof l->text[0], "%s", line);
}

static void load(struct t_cfg *t)
{
    int rc = t_check(t);
    if (rc != CFG_OK)
        print_message("%s\n", t_err);
    assert_int_equal(rc, CFG_OK);
}

static void test_guest_summary_line(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(4);
    t_drop(t, "guests/kiosk1", "console");
    t_str(t, "guests/kiosk3", "cmdline", "kiosk=3");
    load(t);
    char buf[400];
    cfg_guest_summary(&t_out, 1, buf, sizeof buf);
    assert_string_equal(buf, "guest 1 kiosk1: image hello, RAM 32 MiB, GM low 64 + high 128 MiB, "
                             "weight 100, tile 512,0 512x384, console off, autostart on");
    cfg_guest_summary(&t_out, 3, buf, sizeof buf);
    assert_string_equal(buf, "guest 3 kiosk3: image hello, RAM 32 MiB, GM low 64 + high 128 MiB, "
                             "weight 100, tile 512,384 512x384, console on, autostart on, "
                             "cmdline \"kiosk=3\"");
}

static void test_guest_summary_bounds(void **state)
{
    (void)state;
    load(t_base(2));
    char buf[16];
    int n = cfg_guest_summary(&t_out, 0, buf, sizeof buf);
    assert_true(n > 15); /* the full length, like snprintf */
    assert_int_equal(strlen(buf), 15);
    char big[100];
    cfg_guest_summary(&t_out, 2, big, sizeof big);
    assert_string_equal(big, "guest 2: no such guest");
}

static void test_format_renders_every_section_and_guest(void **state)
{
    (void)state;
    static struct lines l;
    struct t_cfg *t = t_base(4);
    t_str(t, "scheduler", "policy", "credit");
    t_u32(t, "graphics", "max-share", 4);
    load(t);
    l.n = 0;
    cfg_format(&t_out, "built-in", collect, &l);
    assert_int_equal(l.n, 6 + 4);
    char want[200];
    snprintf(want, sizeof want,
             "config (built-in): tessera,config-1, 4 guests, DTB %u bytes, "
             "CRC-32 0x%08x",
             t_out.dtb_bytes, t_out.dtb_crc32);
    assert_string_equal(l.text[0], want);
    assert_string_equal(l.text[1], "appliance: model \"test box\", RAM 1024 MiB, reserved 64 MiB, "
                                   "guests use 128 of 960 MiB, aperture 256 MiB");
    assert_string_equal(l.text[2], "graphics: sharing all, max-share 4, 60 slots of 64 MiB");
    assert_string_equal(l.text[3], "display: wall 1024x768 px");
    assert_string_equal(l.text[4], "scheduler: credit, slice 6000 us, workload limit 200000 us");
    assert_string_equal(l.text[5], "balloon: on, period 500 ms, thresholds 25%/50%, "
                                   "slots 1..8 per guest");
    for (unsigned i = 0; i < 4; i++) {
        char g[400];
        cfg_guest_summary(&t_out, i, g, sizeof g);
        assert_string_equal(l.text[6 + i], g);
    }
}

/* The render loop's CPU is named only when it is not the boot CPU. */
static void test_format_names_the_render_cpu(void **state)
{
    (void)state;
    static struct lines l;
    struct t_cfg *t = t_base(1);
    t_u32(t, "scheduler", "render-cpu", 2);
    load(t);
    l.n = 0;
    cfg_format(&t_out, "built-in", collect, &l);
    assert_string_equal(l.text[4], "scheduler: fair, slice 6000 us, workload limit 200000 us, "
                                   "render loop on cpu 2");
}

static void test_format_without_source(void **state)
{
    (void)state;
    static struct lines l;
    struct t_cfg *t = t_base(1);
    t_drop_node(t, "balloon");
    load(t);
    l.n = 0;
    cfg_format(&t_out, NULL, collect, &l);
    assert_true(strncmp(l.text[0], "config: tessera,config-1, 1 guests", 34) == 0);
    assert_string_equal(l.text[2], "graphics: sharing all, max-share none, 60 slots of 64 MiB");
    assert_true(strncmp(l.text[5], "balloon: off,", 13) == 0);
}

static void test_enum_names(void **state)
{
    (void)state;
    assert_string_equal(cfg_sched_policy_name(CFG_SCHED_FAIR), "fair");
    assert_string_equal(cfg_sched_policy_name(CFG_SCHED_RR), "rr");
    assert_string_equal(cfg_sched_policy_name(CFG_SCHED_CREDIT), "credit");
    assert_string_equal(cfg_sched_policy_name(CFG_SCHED_LAS), "las");
    assert_string_equal(cfg_sched_policy_name(4), "?");
    assert_string_equal(cfg_gm_sharing_name(CFG_GM_SHARE_HIGH), "high");
    assert_string_equal(cfg_gm_sharing_name(99), "?");
}

static void test_gtt_params_match_the_checked_layout(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(3);
    t_u32(t, "appliance", "aperture-mib", 512);
    t_str(t, "graphics", "sharing", "high");
    t_u32(t, "graphics", "max-share", 2);
    t_u32(t, "guests/kiosk1", "high-gm-mib", 256);
    load(t);
    struct gtt_layout_params p;
    struct gtt_guest_request req[TESSERA_MAX_GUESTS];
    cfg_gtt_params(&t_out, &p, req);
    assert_int_equal(p.n_guests, 3);
    assert_ptr_equal(p.req, req);
    assert_true(p.aperture_bytes == 512ull << 20);
    assert_true(p.ggtt_bytes == 4ull << 30);
    assert_int_equal(p.share, GTT_SHARE_HIGH);
    assert_int_equal(p.max_share, 2);
    assert_true(req[0].low_gm_bytes == 64ull << 20);
    assert_true(req[1].high_gm_bytes == 256ull << 20);
    /* The hypervisor's layout from these parameters is the one the checker accepted. */
    static struct gtt_layout l;
    char err[200];
    assert_int_equal(gtt_layout_compute(&p, &l, err, sizeof err), 0);
    assert_int_equal(l.n_slots, t_out.n_slots);
    assert_int_equal(l.guest[1].n_slots, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guest_summary_line),
        cmocka_unit_test(test_guest_summary_bounds),
        cmocka_unit_test(test_format_renders_every_section_and_guest),
        cmocka_unit_test(test_format_names_the_render_cpu),
        cmocka_unit_test(test_format_without_source),
        cmocka_unit_test(test_enum_names),
        cmocka_unit_test(test_gtt_params_match_the_checked_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
