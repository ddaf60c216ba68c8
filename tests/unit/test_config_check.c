/* The semantic checker: a valid configuration is read completely, and each rejection rule has
 * its own test asserting the message names the node and property and what was expected. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "test_config_fixture.h"
#include "test_config_expect.h"

/* ---- valid configurations ------------------------------------------------------------------ */

static void test_valid_config_is_read_completely(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(4);
    t_str(t, "guests/kiosk3", "cmdline", "kiosk=3 quiet");
    t_u32(t, "guests/kiosk2", "weight", 250);
    t_drop(t, "guests/kiosk1", "console");
    accept(t);
    const struct cfg *c = &t_out;
    assert_string_equal(c->appliance.model, "test box");
    assert_int_equal(c->appliance.ram_mib, 1024);
    assert_int_equal(c->appliance.reserved_mib, 64);
    assert_int_equal(c->appliance.aperture_mib, 256);
    assert_int_equal(c->graphics.sharing, CFG_GM_SHARE_ALL);
    assert_int_equal(c->display.width_px, 1024);
    assert_int_equal(c->display.height_px, 768);
    assert_int_equal(c->scheduler.policy, CFG_SCHED_FAIR);
    assert_int_equal(c->scheduler.slice_us, 6000);
    assert_true(c->balloon.enabled);
    assert_int_equal(c->balloon.period_ms, 500);
    assert_int_equal(c->balloon.min_slots, 1);
    assert_int_equal(c->balloon.max_slots, 8);
    assert_int_equal(c->n_slots, (4096 - 256) / 64);
    assert_int_equal(c->n_guests, 4);
    assert_string_equal(c->guest[0].name, "kiosk0");
    assert_string_equal(c->guest[3].name, "kiosk3");
    assert_string_equal(c->guest[0].image, "hello");
    assert_int_equal(c->guest[0].ram_mib, 32);
    assert_int_equal(c->guest[0].low_gm_mib, 64);
    assert_int_equal(c->guest[0].high_gm_mib, 128);
    assert_int_equal(c->guest[2].weight, 250);
    assert_int_equal(c->guest[3].tile.x, 512);
    assert_int_equal(c->guest[3].tile.y, 384);
    assert_int_equal(c->guest[3].tile.width, 512);
    assert_int_equal(c->guest[3].tile.height, 384);
    assert_true(c->guest[0].console);
    assert_false(c->guest[1].console);
    assert_true(c->guest[1].autostart);
    assert_string_equal(c->guest[3].cmdline, "kiosk=3 quiet");
    assert_string_equal(c->guest[0].cmdline, "");
    assert_int_equal(c->dtb_bytes, fdt_totalsize(t_dtb));
}

static void test_defaults_fill_optional_nodes_and_properties(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_drop_node(t, "scheduler");
    t_drop_node(t, "balloon");
    t_drop_node(t, "graphics");
    t_drop(t, "appliance", "reserved-mib");
    t_drop(t, "appliance", "aperture-mib");
    t_drop(t, "appliance", "model");
    t_drop(t, "guests/kiosk0", "console");
    t_drop(t, "guests/kiosk0", "autostart");
    accept(t);
    const struct cfg *c = &t_out;
    assert_int_equal(c->appliance.reserved_mib, CFG_DEFAULT_RESERVED_MIB);
    assert_int_equal(c->appliance.aperture_mib, 256);
    assert_string_equal(c->appliance.model, "");
    assert_int_equal(c->graphics.sharing, CFG_GM_SHARE_ALL);
    assert_int_equal(c->graphics.max_share, 0);
    assert_int_equal(c->scheduler.policy, CFG_SCHED_FAIR);
    assert_int_equal(c->scheduler.slice_us, CFG_DEFAULT_SLICE_US);
    assert_false(c->balloon.enabled);
    assert_int_equal(c->balloon.period_ms, CFG_DEFAULT_PERIOD_MS);
    assert_int_equal(c->balloon.low_threshold_pct, CFG_DEFAULT_LOW_PCT);
    assert_int_equal(c->balloon.high_threshold_pct, CFG_DEFAULT_HIGH_PCT);
    assert_int_equal(c->balloon.min_slots, CFG_DEFAULT_MIN_SLOTS);
    assert_int_equal(c->balloon.max_slots, c->n_slots); /* every slot */
    assert_false(c->guest[0].console);
    assert_false(c->guest[0].autostart);
}

static void test_round_robin_defaults_to_its_own_slice(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(1);
    t_str(t, "scheduler", "policy", "rr");
    t_drop(t, "scheduler", "slice-us");
    accept(t);
    assert_int_equal(t_out.scheduler.policy, CFG_SCHED_RR);
    assert_int_equal(t_out.scheduler.slice_us, CFG_DEFAULT_RR_SLICE_US);
    t_str(t, "scheduler", "policy", "las");
    t_u32(t, "scheduler", "slice-us", 2000);
    accept(t);
    assert_int_equal(t_out.scheduler.policy, CFG_SCHED_LAS);
    assert_int_equal(t_out.scheduler.slice_us, 2000);
}

static void test_shared_image_tags_are_allowed(void **state)
{
    (void)state;
    /* Several guests running the same GRUB module is the normal kiosk case (kiosk4 runs four
     * "hello" guests): GRUB loads the module once, each guest gets its own copy in its RAM. */
    struct t_cfg *t = t_base(4);
    accept(t);
    assert_string_equal(t_out.guest[1].image, t_out.guest[2].image);
}

static void test_sixty_four_guests_are_accepted(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(TESSERA_MAX_GUESTS);
    accept(t);
    assert_int_equal(t_out.n_guests, TESSERA_MAX_GUESTS);
    assert_string_equal(t_out.guest[63].name, "kiosk63");
}

/* ---- one test per rejection rule ------------------------------------------------------------ */

static void test_rejects_missing_required_property(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(4);
    t_drop(t, "guests/kiosk1", "ram-mib");
    REJECT(t, "/guests/kiosk1: ram-mib: missing", "guest RAM in MiB");
    t = t_base(1);
    t_drop(t, "display", "height-px");
    REJECT(t, "/display: height-px: missing");
    t = t_base(1);
    t_drop(t, "", "compatible");
    REJECT(t, "/: compatible: missing");
}

static void test_rejects_missing_required_node(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(1);
    t_drop_node(t, "display");
    REJECT(t, "/: missing node \"display\"");
    t = t_base(1);
    t_drop_node(t, "appliance");
    REJECT(t, "/: missing node \"appliance\"");
}

static void test_rejects_wrong_compatible(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(1);
    t_str(t, "", "compatible", "tessera,config-2");
    REJECT(t, "/: compatible: expected one of \"tessera,config-1\"", "got \"tessera,config-2\"");
}

static void test_rejects_number_of_wrong_size(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_str(t, "guests/kiosk1", "weight", "100");
    REJECT(t, "/guests/kiosk1: weight: expected one 32-bit cell", "e.g. weight = <1>",
           "got the string \"100\"");
    t = t_base(2);
    t_cells(t, "appliance", "ram-mib", 2, 0, 1024, 0, 0); /* a 64-bit value */
    REJECT(t, "/appliance: ram-mib: expected one 32-bit cell", "got 8 bytes");
}

/* `cpus`: the CPU a guest's vCPU runs on, any index up to 63 (folded at boot onto the CPUs the
 * appliance has), named in the summary when not the boot CPU; a Tessera guest has one vCPU, and
 * no CPU is named twice. */
static void test_cpus_names_one_cpu(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_u32(t, "guests/kiosk1", "cpus", 3);
    accept(t);
    assert_int_equal(t_out.guest[0].cpus.n, 1);
    assert_int_equal(t_out.guest[0].cpus.cpu[0], 0);
    assert_int_equal(t_out.guest[1].cpus.n, 1);
    assert_int_equal(t_out.guest[1].cpus.cpu[0], 3);
    char line[400];
    cfg_guest_summary(&t_out, 1, line, sizeof line);
    assert_non_null(strstr(line, "tile 512,0 512x384, cpu 3, console"));
    cfg_guest_summary(&t_out, 0, line, sizeof line);
    assert_null(strstr(line, "cpu"));
    t = t_base(2);
    t_u32(t, "guests/kiosk1", "cpus", 64);
    REJECT(t, "/guests/kiosk1: cpus: expected 0..63", "got 64");
    t = t_base(2);
    t_cells(t, "guests/kiosk0", "cpus", 2, 1, 2, 0, 0);
    REJECT(t, "/guests/kiosk0: cpus: a Tessera guest has one vCPU",
           "only a Linux guest (kernel = \"linux\") takes several");
    t = t_base(2);
    t_cells(t, "guests/kiosk0", "cpus", 2, 1, 64, 0, 0);
    REJECT(t, "/guests/kiosk0: cpus: vCPU 1: expected 0..63", "got 64");
    t = t_base(2);
    t_cells(t, "guests/kiosk0", "cpus", 3, 1, 2, 1, 0);
    REJECT(t, "/guests/kiosk0: cpus: CPU 1 named for vCPUs 0 and 2",
           "each vCPU gets a CPU of its own");
    t = t_base(2);
    t_str(t, "guests/kiosk0", "cpus", "1");
    REJECT(t, "/guests/kiosk0: cpus: expected 1..8 cells, one CPU per vCPU", "e.g. cpus = <2 3>");
}

/* `render-cpu`: the CPU of the render loop, any index up to 63 (folded at boot like `cpus`),
 * named in the scheduler's summary line when not the boot CPU. */
static void test_render_cpu_names_one_cpu(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    accept(t);
    assert_int_equal(t_out.scheduler.render_cpu, 0);
    t = t_base(2);
    t_u32(t, "scheduler", "render-cpu", 5);
    accept(t);
    assert_int_equal(t_out.scheduler.render_cpu, 5);
    t = t_base(2);
    t_u32(t, "scheduler", "render-cpu", 64);
    REJECT(t, "/scheduler: render-cpu: expected 0..63", "got 64");
    t = t_base(2);
    t_cells(t, "scheduler", "render-cpu", 2, 1, 2, 0, 0);
    REJECT(t, "/scheduler: render-cpu: expected one 32-bit cell", "got 8 bytes");
}

static void test_rejects_tile_of_wrong_size(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_cells(t, "guests/kiosk0", "tile-px", 3, 0, 0, 512, 0);
    REJECT(t, "/guests/kiosk0: tile-px: expected four cells <x y width height>", "got 12 bytes");
}

static void test_rejects_string_of_wrong_type(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_u32(t, "guests/kiosk0", "image", 7);
    REJECT(t, "/guests/kiosk0: image: expected one string");
    /* a string list ("a", "b") is not one string */
    t = t_base(2);
    t_raw(t, "guests/kiosk1", "image", "hello\0spin", 11);
    REJECT(t, "/guests/kiosk1: image: expected one string", "holding several strings");
}

static void test_rejects_boolean_with_a_value(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_u32(t, "guests/kiosk1", "console", 0);
    REJECT(t, "/guests/kiosk1: console: expected an empty property", "`console;`");
    t = t_base(2);
    t_str(t, "balloon", "enabled", "no");
    REJECT(t, "/balloon: enabled: expected an empty property");
}

static void test_rejects_unknown_choice(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(1);
    t_str(t, "scheduler", "policy", "wfq");
    REJECT(t, "/scheduler: policy: expected one of \"fair\", \"rr\", \"credit\", \"las\"",
           "got \"wfq\"");
    t = t_base(1);
    t_str(t, "graphics", "sharing", "some");
    REJECT(t, "/graphics: sharing: expected one of \"all\", \"high\", \"none\"");
}

static void test_rejects_duplicate_guest_names(void **state)
{
    (void)state;
    /* dtc refuses two sibling nodes with one name, but a blob can be made by other means. */
    struct t_cfg *t = t_base(3);
    t_rename_node(t, "guests/kiosk2", "guests/kiosk0#2");
    REJECT(t, "/guests/kiosk0: duplicate guest name", "guest 0");
    /* names that differ only in case would confuse an operator typing them */
    t = t_base(3);
    t_rename_node(t, "guests/kiosk1", "guests/KIOSK0");
    REJECT(t, "/guests/KIOSK0: duplicate guest name", "ignoring case");
}

static void test_rejects_reserved_image_tag(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_str(t, "guests/kiosk1", "image", "tessera-config");
    REJECT(t, "/guests/kiosk1: image:", "reserved for the configuration module");
}

static void test_rejects_bad_image_tag_characters_and_length(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_str(t, "guests/kiosk0", "image", "hello world");
    REJECT(t, "/guests/kiosk0: image: character 5 (0x20) not allowed");
    t = t_base(2);
    t_str(t, "guests/kiosk0", "image", "abcdefghijabcdefghijabcdefghijab"); /* 32 chars */
    REJECT(t, "/guests/kiosk0: image: expected 1..31 characters", "got 32");
    t = t_base(2);
    t_str(t, "guests/kiosk0", "image", "");
    REJECT(t, "/guests/kiosk0: image: expected 1..31 characters", "got 0");
    t = t_base(2);
    t_str(t, "guests/kiosk0", "cmdline", "a\tb");
    REJECT(t, "/guests/kiosk0: cmdline: character 1 (0x09) not allowed", "printable ASCII");
}

static void test_rejects_zero_weight(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(4);
    t_u32(t, "guests/kiosk2", "weight", 0);
    REJECT(t, "/guests/kiosk2: weight: expected 1..1000 (render weight), got 0");
}

static void test_rejects_out_of_range_weight(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(4);
    t_u32(t, "guests/kiosk3", "weight", 1001);
    REJECT(t, "/guests/kiosk3: weight: expected 1..1000", "got 1001");
}

static void test_rejects_out_of_range_numbers(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(1);
    t_u32(t, "scheduler", "slice-us", 50);
    REJECT(t, "/scheduler: slice-us: expected 100..100000", "got 50");
    t = t_base(1);
    t_u32(t, "guests/kiosk0", "ram-mib", 2);
    REJECT(t, "/guests/kiosk0: ram-mib: expected 4..16384", "got 2");
    t = t_base(1);
    t_u32(t, "guests/kiosk0", "low-gm-mib", 0);
    REJECT(t, "/guests/kiosk0: low-gm-mib: expected 1..4096", "got 0");
    t = t_base(1);
    t_u32(t, "display", "width-px", 10000);
    REJECT(t, "/display: width-px: expected 64..8192", "got 10000");
    t = t_base(1);
    t_u32(t, "balloon", "period-ms", 0);
    REJECT(t, "/balloon: period-ms: expected 100..10000", "got 0");
}

static void test_rejects_high_gm_not_whole_slots(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_u32(t, "guests/kiosk1", "high-gm-mib", 100);
    REJECT(t, "/guests/kiosk1: high-gm-mib: expected a multiple of 64", "got 100");
}

static void test_rejects_aperture_not_power_of_two(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_u32(t, "appliance", "aperture-mib", 384);
    REJECT(t, "/appliance: aperture-mib: expected a power of two", "got 384");
}

static void test_rejects_low_gm_that_cannot_fit_the_aperture(void **state)
{
    (void)state;
    /* Sharing everything: one window must fit the aperture less host area and fence pool
     * (256 - 16 - 32 = 208 MiB). */
    struct t_cfg *t = t_base(4);
    t_u32(t, "guests/kiosk2", "low-gm-mib", 256);
    REJECT(t, "/guests/kiosk2: low-gm-mib: 256 MiB does not fit", "sharing \"all\"",
           "aperture (256 MiB) leaves 208 MiB", "48 MiB short");
    /* Partitioned low GM: the fourth 64 MiB window is the first that overflows. */
    t = t_base(4);
    t_str(t, "graphics", "sharing", "high");
    REJECT(t, "/guests/kiosk3: low-gm-mib: 64 MiB does not fit", "sharing \"high\"",
           "guests ask 256 MiB", "48 MiB short");
}

static void test_rejects_high_gm_that_cannot_fit_the_ggtt(void **state)
{
    (void)state;
    /* Static partition: 4 x 1024 MiB of high GM is 64 slots, high GM holds 60. */
    struct t_cfg *t = t_base(4);
    t_str(t, "graphics", "sharing", "none");
    t_u32(t, "appliance", "aperture-mib", 512); /* room for 4 x 64 MiB low windows */
    t_drop_node(t, "balloon");
    for (int i = 0; i < 4; i++) {
        char node[32];
        snprintf(node, sizeof node, "guests/kiosk%d", i);
        t_u32(t, node, "high-gm-mib", 1024);
    }
    REJECT(t, "/guests/kiosk3: high-gm-mib: 1024 MiB does not fit", "sharing \"none\"",
           "high graphics memory", "slots");
    /* Even shared, one guest cannot ask for more than all of high GM. */
    t = t_base(1);
    t_drop_node(t, "balloon");
    t_u32(t, "guests/kiosk0", "high-gm-mib", 4096);
    REJECT(t, "/guests/kiosk0: high-gm-mib: 4096 MiB does not fit", "holds 60 slots");
}

static void test_rejects_gm_sharing_beyond_max_share(void **state)
{
    (void)state;
    /* 208 MiB of low GM holds three 64 MiB windows side by side; the fourth must share. */
    struct t_cfg *t = t_base(4);
    t_u32(t, "graphics", "max-share", 1);
    REJECT(t, "/guests/kiosk3: low-gm-mib:", "max-share set", "the limit is 1");
}

static void test_rejects_guest_ram_beyond_the_appliance(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(4);
    for (int i = 0; i < 4; i++) {
        char node[32];
        snprintf(node, sizeof node, "guests/kiosk%d", i);
        t_u32(t, node, "ram-mib", 300);
    }
    /* 960 MiB for guests: kiosk3 brings the sum to 1200 */
    REJECT(t, "/guests/kiosk3: ram-mib: guests 0..3 need 1200 MiB",
           "allows 960 MiB (/appliance ram-mib 1024 minus reserved-mib 64)");
}

static void test_rejects_reserve_not_below_appliance_ram(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(1);
    t_u32(t, "appliance", "reserved-mib", 1024);
    REJECT(t, "/appliance: reserved-mib: expected less than ram-mib (1024), got 1024");
}

static void test_rejects_overlapping_tiles(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(4);
    t_cells(t, "guests/kiosk2", "tile-px", 4, 256, 200, 512, 384);
    REJECT(t, "/guests/kiosk2: tile-px: tile at 256,200 size 512x384 overlaps guest kiosk0");
    /* touching edges is fine */
    t = t_base(2);
    t_cells(t, "guests/kiosk1", "tile-px", 4, 512, 0, 512, 384);
    accept(t);
}

static void test_rejects_tile_outside_the_wall(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(4);
    t_cells(t, "guests/kiosk1", "tile-px", 4, 600, 0, 512, 384);
    REJECT(t, "/guests/kiosk1: tile-px: tile at 600,0 size 512x384 reaches 1112,384",
           "outside the 1024x768 wall");
    /* a huge coordinate must not wrap around */
    t = t_base(1);
    t_cells(t, "guests/kiosk0", "tile-px", 4, 0xfffffff0u, 0, 512, 384);
    REJECT(t, "/guests/kiosk0: tile-px:", "outside the 1024x768 wall");
}

static void test_rejects_tiny_tile(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(1);
    t_cells(t, "guests/kiosk0", "tile-px", 4, 0, 0, 0, 384);
    REJECT(t, "/guests/kiosk0: tile-px: tile 0x384: width and height must be at least 16");
}

static void test_rejects_unknown_property_with_a_suggestion(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(4);
    t_drop(t, "guests/kiosk1", "weight");
    t_u32(t, "guests/kiosk1", "weigth", 100);
    REJECT(t, "/guests/kiosk1: weigth: unknown property (did you mean \"weight\"?)");
    /* the unit left out */
    t = t_base(1);
    t_drop(t, "scheduler", "slice-us");
    t_u32(t, "scheduler", "slice", 6000);
    REJECT(t, "/scheduler: slice: unknown property (did you mean \"slice-us\"?)");
}

static void test_rejects_unknown_property_listing_the_known_ones(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(1);
    t_u32(t, "display", "refresh-hz", 60);
    REJECT(t, "/display: refresh-hz: unknown property (/display takes: width-px height-px)");
    t = t_base(1);
    t_u32(t, "guests", "count", 1);
    REJECT(t, "/guests: count: unknown property (/guests takes none)");
}

static void test_rejects_unknown_node(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(1);
    t_rename_node(t, "scheduler", "sheduler");
    REJECT(t, "/: unknown node \"sheduler\" (did you mean \"scheduler\"?)");
    t = t_base(1);
    t_node(t, "network");
    REJECT(t, "/: unknown node \"network\" (known: appliance");
    t = t_base(1);
    t_u32(t, "guests/kiosk0/gpu", "weight", 1);
    REJECT(t, "/guests/kiosk0: unknown node \"gpu\"");
    t = t_base(1);
    t_node(t, "balloon/slots");
    REJECT(t, "/balloon: unknown node \"slots\"");
}

static void test_rejects_invalid_guest_node_name(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_rename_node(t, "guests/kiosk1", "guests/guest@1");
    REJECT(t, "/guests/guest@1: guest name must start with a letter", "character 5 is '@'");
    t = t_base(2);
    t_rename_node(t, "guests/kiosk1", "guests/0kiosk");
    REJECT(t, "/guests/0kiosk: guest name must start with a letter");
    t = t_base(2);
    t_rename_node(t, "guests/kiosk1", "guests/a-very-long-kiosk");
    REJECT(t, "/guests/a-very-long-kiosk: guest name must be 1..15 characters, got 17");
}

static void test_rejects_too_many_guests(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(TESSERA_MAX_GUESTS + 1);
    REJECT(t, "/guests: 65 guests, at most 64 are supported");
}

static void test_rejects_no_guests(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(0);
    REJECT(t, "/guests: no guests");
}

static void test_rejects_repeated_node_or_property(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(1);
    t_node(t, "display#2"); /* a second, empty /display node */
    REJECT(t, "/: node \"display\" appears twice");
    t = t_base(1);
    struct t_entry *e = t_append(t, "display", "width-px");
    e->kind = T_U32;
    e->cells[0] = 800;
    REJECT(t, "/display: width-px: property appears twice");
}

static void test_rejects_balloon_thresholds_out_of_order(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(1);
    t_u32(t, "balloon", "low-threshold-pct", 60);
    REJECT(t, "/balloon: high-threshold-pct: expected more than low-threshold-pct (60), got 50");
}

static void test_rejects_balloon_slot_bounds(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(1);
    t_u32(t, "balloon", "max-slots", 61);
    REJECT(t, "/balloon: max-slots: expected at most 60", "256 MiB aperture", "got 61");
    t = t_base(1);
    t_u32(t, "balloon", "min-slots", 9);
    REJECT(t, "/balloon: min-slots: expected at most max-slots (8), got 9");
    /* a guest starting outside the bounds while the balloon is on */
    t = t_base(2);
    t_u32(t, "guests/kiosk1", "high-gm-mib", 576);
    REJECT(t, "/guests/kiosk1: high-gm-mib: 576 MiB is 9 slots, outside the balloon's bounds "
              "1..8");
    /* ... is fine with the balloon off */
    t_drop(t, "balloon", "enabled");
    accept(t);
}

/* ---- robustness of the entry point ------------------------------------------------------------ */

static void test_unaligned_dtb_is_accepted(void **state)
{
    (void)state;
    static unsigned char shifted[T_DTB_BYTES + 8];
    size_t len = t_build(t_base(4));
    memcpy(shifted + 3, t_dtb, len);
    assert_int_equal(cfg_check_dtb(shifted + 3, len, &t_out, t_err, sizeof t_err), CFG_OK);
    assert_int_equal(t_out.n_guests, 4);
}

static void test_broken_dtb_is_a_blob_error(void **state)
{
    (void)state;
    size_t len = t_build(t_base(2));
    t_dtb[0] ^= 0xff;
    assert_int_equal(cfg_check_dtb(t_dtb, len, &t_out, t_err, sizeof t_err), CFG_EBLOB);
    assert_non_null(strstr(t_err, "DTB header: bad magic"));
    t_dtb[0] ^= 0xff;
    assert_int_equal(cfg_check_dtb(t_dtb, len - 1, &t_out, t_err, sizeof t_err), CFG_EBLOB);
    assert_non_null(strstr(t_err, "totalsize"));
    assert_int_equal(cfg_check_dtb(t_dtb, 10, &t_out, t_err, sizeof t_err), CFG_EBLOB);
    assert_non_null(strstr(t_err, "shorter than a DTB header"));
    /* an older format version (libfdt still reads 2..16; we accept only what dtc writes) */
    t_dtb[offsetof(struct fdt_header, version) + 3] = 16;
    assert_int_equal(cfg_check_dtb(t_dtb, len, &t_out, t_err, sizeof t_err), CFG_EBLOB);
    assert_non_null(strstr(t_err, "DTB header: version 16, expected 17"));
}

static void test_error_buffer_may_be_small_or_absent(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    t_u32(t, "guests/kiosk1", "weight", 0);
    size_t len = t_build(t);
    char small[8];
    memset(small, 'x', sizeof small);
    assert_int_equal(cfg_check_dtb(t_dtb, len, &t_out, small, sizeof small), CFG_EINVALID);
    assert_int_equal(small[7], '\0');
    assert_string_equal(small, "/guests");
    assert_int_equal(cfg_check_dtb(t_dtb, len, &t_out, NULL, 0), CFG_EINVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_config_is_read_completely),
        cmocka_unit_test(test_defaults_fill_optional_nodes_and_properties),
        cmocka_unit_test(test_round_robin_defaults_to_its_own_slice),
        cmocka_unit_test(test_shared_image_tags_are_allowed),
        cmocka_unit_test(test_sixty_four_guests_are_accepted),
        cmocka_unit_test(test_rejects_missing_required_property),
        cmocka_unit_test(test_rejects_missing_required_node),
        cmocka_unit_test(test_rejects_wrong_compatible),
        cmocka_unit_test(test_rejects_number_of_wrong_size),
        cmocka_unit_test(test_rejects_tile_of_wrong_size),
        cmocka_unit_test(test_rejects_string_of_wrong_type),
        cmocka_unit_test(test_rejects_boolean_with_a_value),
        cmocka_unit_test(test_rejects_unknown_choice),
        cmocka_unit_test(test_rejects_duplicate_guest_names),
        cmocka_unit_test(test_rejects_reserved_image_tag),
        cmocka_unit_test(test_rejects_bad_image_tag_characters_and_length),
        cmocka_unit_test(test_rejects_zero_weight),
        cmocka_unit_test(test_rejects_out_of_range_weight),
        cmocka_unit_test(test_rejects_out_of_range_numbers),
        cmocka_unit_test(test_rejects_high_gm_not_whole_slots),
        cmocka_unit_test(test_rejects_aperture_not_power_of_two),
        cmocka_unit_test(test_rejects_low_gm_that_cannot_fit_the_aperture),
        cmocka_unit_test(test_rejects_high_gm_that_cannot_fit_the_ggtt),
        cmocka_unit_test(test_rejects_gm_sharing_beyond_max_share),
        cmocka_unit_test(test_rejects_guest_ram_beyond_the_appliance),
        cmocka_unit_test(test_rejects_reserve_not_below_appliance_ram),
        cmocka_unit_test(test_rejects_overlapping_tiles),
        cmocka_unit_test(test_rejects_tile_outside_the_wall),
        cmocka_unit_test(test_rejects_tiny_tile),
        cmocka_unit_test(test_cpus_names_one_cpu),
        cmocka_unit_test(test_render_cpu_names_one_cpu),
        cmocka_unit_test(test_rejects_unknown_property_with_a_suggestion),
        cmocka_unit_test(test_rejects_unknown_property_listing_the_known_ones),
        cmocka_unit_test(test_rejects_unknown_node),
        cmocka_unit_test(test_rejects_invalid_guest_node_name),
        cmocka_unit_test(test_rejects_too_many_guests),
        cmocka_unit_test(test_rejects_no_guests),
        cmocka_unit_test(test_rejects_repeated_node_or_property),
        cmocka_unit_test(test_rejects_balloon_thresholds_out_of_order),
        cmocka_unit_test(test_rejects_balloon_slot_bounds),
        cmocka_unit_test(test_unaligned_dtb_is_accepted),
        cmocka_unit_test(test_broken_dtb_is_a_blob_error),
        cmocka_unit_test(test_error_buffer_may_be_small_or_absent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
