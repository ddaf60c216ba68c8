/* The configuration's shape: which nodes exist, which properties each takes and their limits
 * (tables, the policy), and the walk over the tree that applies them.  Cross-node rules are in
 * check.c.  Entry point: cfg_check_dtb(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "config/blob.h"
#include "config/internal.h"
#include "lib/edid.h"

#define U32(nm, req, lo, hi, mult, desc, type, field) \
    { \
        .name = nm, .kind = CFG_K_U32, .required = req, .min = lo, .max = hi, .multiple_of = mult, \
        .what = desc, .offset = offsetof(type, field) \
    }
#define BOOL(nm, desc, type, field) \
    { \
        .name = nm, .kind = CFG_K_BOOL, .what = desc, .offset = offsetof(type, field) \
    }
#define STR(nm, req, lo, hi, cs, desc, type, field) \
    { \
        .name = nm, .kind = CFG_K_STRING, .required = req, .min = lo, .max = hi, .charset = cs, \
        .what = desc, .offset = offsetof(type, field) \
    }
#define ENUM(nm, list, desc, type, field) \
    { \
        .name = nm, .kind = CFG_K_ENUM, .choices = list, .what = desc, \
        .offset = offsetof(type, field) \
    }

static const char *const root_compatible[] = { CFG_COMPATIBLE, NULL };
struct root_props {
    uint32_t compatible;
};
static const struct cfg_prop root_props[] = {
    { .name = "compatible",
      .kind = CFG_K_ENUM,
      .required = true,
      .choices = root_compatible,
      .what = "the configuration format",
      .offset = offsetof(struct root_props, compatible) },
};

static const struct cfg_prop appliance_props[] = {
    STR("model", false, 0, CFG_MODEL_MAX - 1, CFG_CS_PRINTABLE, "appliance model, free text",
        struct cfg_appliance, model),
    U32("ram-mib", true, CFG_APPLIANCE_RAM_MIN_MIB, CFG_APPLIANCE_RAM_MAX_MIB, 0,
        "RAM the appliance has, in MiB", struct cfg_appliance, ram_mib),
    U32("reserved-mib", false, CFG_RESERVED_MIN_MIB, CFG_APPLIANCE_RAM_MAX_MIB, 0,
        "RAM kept by the hypervisor, in MiB", struct cfg_appliance, reserved_mib),
    { .name = "aperture-mib",
      .kind = CFG_K_U32,
      .min = CFG_APERTURE_MIN_MIB,
      .max = CFG_APERTURE_MAX_MIB,
      .pow2 = true,
      .what = "iGPU aperture (BAR2) size in MiB, as the firmware sets it",
      .offset = offsetof(struct cfg_appliance, aperture_mib) },
};

static const char *const sharing_names[] = { "all", "high", "none", NULL };
static const struct cfg_prop graphics_props[] = {
    ENUM("sharing", sharing_names, "which graphics memory guests may share", struct cfg_graphics,
         sharing),
    U32("max-share", false, 0, CFG_MAX_SHARE_MAX, 0,
        "most guests mapping one graphics-memory page, 0 = no limit", struct cfg_graphics,
        max_share),
};

static const struct cfg_prop display_props[] = {
    U32("width-px", true, CFG_WALL_MIN_PX, CFG_WALL_MAX_PX, 0, "kiosk wall width in pixels",
        struct cfg_display, width_px),
    U32("height-px", true, CFG_WALL_MIN_PX, CFG_WALL_MAX_PX, 0, "kiosk wall height in pixels",
        struct cfg_display, height_px),
};

static const char *const policy_names[] = { "fair", "rr", "credit", "las", NULL };
enum { SCHED_POLICY, SCHED_SLICE, SCHED_LIMIT, SCHED_RENDER_CPU }; /* scheduler_props' seen bits */
enum { BALLOON_MAX_SLOTS = 5 }; /* index of max-slots in balloon_props */
/* Slots in the whole GGTT: an upper bound before the layout says how many high GM holds. */
#define MAX_SLOTS (uint32_t)(GTT_DEFAULT_GGTT_BYTES / GTT_DEFAULT_SLOT_BYTES)
static const struct cfg_prop scheduler_props[] = {
    [SCHED_POLICY] = ENUM("policy", policy_names, "render scheduling policy", struct cfg_scheduler,
                          policy),
    [SCHED_SLICE] = U32("slice-us", false, CFG_SLICE_MIN_US, CFG_SLICE_MAX_US, 0,
                        "render time slice in microseconds", struct cfg_scheduler, slice_us),
    [SCHED_LIMIT] = U32("workload-limit-us", false, CFG_SLICE_MIN_US, CFG_WORKLOAD_LIMIT_MAX_US, 0,
                        "longest GPU time one workload may run, in microseconds (the watchdog)",
                        struct cfg_scheduler, workload_limit_us),
    [SCHED_RENDER_CPU] = U32("render-cpu", false, 0, CFG_CPU_INDEX_MAX, 0,
                             "the CPU the render loop (the GPU model on emulators) runs on",
                             struct cfg_scheduler, render_cpu),
};

static const struct cfg_prop balloon_props[] = {
    BOOL("enabled", "graphics-memory ballooning", struct cfg_balloon, enabled),
    U32("period-ms", false, CFG_PERIOD_MIN_MS, CFG_PERIOD_MAX_MS, 0,
        "balloon controller period in milliseconds", struct cfg_balloon, period_ms),
    U32("low-threshold-pct", false, CFG_THRESHOLD_MIN_PCT, CFG_THRESHOLD_MAX_PCT, 0,
        "low threshold, percent of the overhead function's maximum", struct cfg_balloon,
        low_threshold_pct),
    U32("high-threshold-pct", false, CFG_THRESHOLD_MIN_PCT, CFG_THRESHOLD_MAX_PCT, 0,
        "high threshold, percent of the overhead function's maximum", struct cfg_balloon,
        high_threshold_pct),
    U32("min-slots", false, 0, MAX_SLOTS, 0, "fewest high-GM slots a guest keeps",
        struct cfg_balloon, min_slots),
    [BALLOON_MAX_SLOTS] = U32("max-slots", false, 1, MAX_SLOTS, 0,
                              "most high-GM slots a guest may grow to", struct cfg_balloon,
                              max_slots),
};

static const char *const kernel_names[] = { "tessera", "linux", NULL }; /* cfg_guest_kind */
static const char *const vgpu_names[] = { "tessera", "i915", NULL };    /* cfg_vgpu_profile */
static const char *const display_names[] = { "none", "dp", NULL };      /* cfg_vgpu_display */
enum { GUEST_FRAMEBUFFER = 11 };                       /* index of framebuffer-px in guest_props */
enum { GUEST_DISPLAY_PX = 15, GUEST_DISPLAY_HZ = 16 }; /* display-px, display-hz */
_Static_assert(offsetof(struct cfg_guest, display_height_px) ==
                   offsetof(struct cfg_guest, display_width_px) + sizeof(uint32_t),
               "display_width_px and display_height_px must be adjacent");
/* framebuffer-px is read as two uint32_t side by side. */
_Static_assert(offsetof(struct cfg_guest, fb_height_px) ==
                   offsetof(struct cfg_guest, fb_width_px) + sizeof(uint32_t),
               "fb_width_px and fb_height_px must be adjacent");
static const struct cfg_prop guest_props[] = {
    STR("image", true, 1, CFG_IMAGE_MAX - 1, CFG_CS_TAG, "GRUB module2 tag of the guest image",
        struct cfg_guest, image),
    U32("ram-mib", true, CFG_GUEST_RAM_MIN_MIB, CFG_GUEST_RAM_MAX_MIB, 0, "guest RAM in MiB",
        struct cfg_guest, ram_mib),
    U32("low-gm-mib", true, CFG_LOW_GM_MIN_MIB, CFG_LOW_GM_MAX_MIB, 0,
        "CPU-visible graphics memory in MiB", struct cfg_guest, low_gm_mib),
    U32("high-gm-mib", true, 0, CFG_HIGH_GM_MAX_MIB, CFG_SLOT_MIB,
        "GPU-only graphics memory in MiB, whole 64 MiB slots", struct cfg_guest, high_gm_mib),
    U32("weight", true, CFG_WEIGHT_MIN, CFG_WEIGHT_MAX, 0, "render weight", struct cfg_guest,
        weight),
    { .name = "tile-px",
      .kind = CFG_K_TILE,
      .required = true,
      .what = "place on the wall in pixels",
      .offset = offsetof(struct cfg_guest, tile) },
    BOOL("console", "keep the guest's serial console", struct cfg_guest, console),
    BOOL("autostart", "start the guest at boot", struct cfg_guest, autostart),
    STR("cmdline", false, 0, CFG_CMDLINE_MAX - 1, CFG_CS_PRINTABLE, "guest command line",
        struct cfg_guest, cmdline),
    ENUM("kernel", kernel_names, "what the guest boots: a Tessera ELF image or a Linux bzImage",
         struct cfg_guest, kind),
    STR("initrd", false, 1, CFG_IMAGE_MAX - 1, CFG_CS_TAG,
        "GRUB module2 tag of a Linux guest's initramfs", struct cfg_guest, initrd),
    [GUEST_FRAMEBUFFER] = { .name = "framebuffer-px",
                            .kind = CFG_K_SIZE,
                            .what =
                                "a Linux guest's linear framebuffer in pixels, shown on its tile",
                            .offset = offsetof(struct cfg_guest, fb_width_px) },
    U32("fence-pool-kib", false, CFG_FENCE_SHARE_UNIT_KIB, CFG_FENCE_POOL_KIB,
        CFG_FENCE_SHARE_UNIT_KIB, "the guest's share of the fence pool in KiB", struct cfg_guest,
        fence_pool_kib),
    ENUM("vgpu", vgpu_names, "the vGPU its driver finds: Tessera's contract or i915's",
         struct cfg_guest, vgpu),
    ENUM("vgpu-display", display_names,
         "the display an i915 vGPU offers: none or one virtual "
         "DisplayPort monitor",
         struct cfg_guest, vgpu_display),
    [GUEST_DISPLAY_PX] = { .name = "display-px",
                           .kind = CFG_K_SIZE,
                           .what = "the virtual monitor's preferred mode in pixels",
                           .offset = offsetof(struct cfg_guest, display_width_px) },
    [GUEST_DISPLAY_HZ] = U32("display-hz", false, EDID_MIN_HZ, EDID_MAX_HZ, 0,
                             "the virtual monitor's refresh rate in Hz", struct cfg_guest,
                             display_hz),
    { .name = "cpus",
      .kind = CFG_K_CPUS,
      .min = 0,
      .max = CFG_CPU_INDEX_MAX,
      .what = "the CPU each of the guest's vCPUs runs on, as the shell's `cpus` numbers them",
      .offset = offsetof(struct cfg_guest, cpus) },
};

#define N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

/* A node that takes no children: any subnode is a typo or a misplaced block. */
static int no_subnodes(struct cfg_ctx *x, int node, const char *path, const char *hint)
{
    char what[160];
    int sub = fdt_first_subnode(x->fdt, node);
    if (sub >= 0) {
        const char *name = fdt_get_name(x->fdt, sub, NULL);
        snprintf(what, sizeof what, "unknown node \"%.40s\" (%s)", name ? name : "?", hint);
        return cfg_fail(x, path, NULL, what);
    }
    if (sub != -FDT_ERR_NOTFOUND)
        return cfg_fail(x, path, NULL, "corrupt subnode list");
    return CFG_OK;
}

static int plain_node(struct cfg_ctx *x, int node, const char *path, const struct cfg_prop *props,
                      unsigned n, void *dst, uint64_t *seen)
{
    int rc = cfg_read_props(x, node, path, props, n, dst, seen);
    if (rc != CFG_OK)
        return rc;
    return no_subnodes(x, node, path, "this node has properties only");
}

/* Guest names are what an operator types (`vm start kiosk0`): a letter, then letters, digits,
 * '_' or '-'.  That also rules out unit addresses (`guest@0`). */
static int check_guest_name(struct cfg_ctx *x, const char *name, const char *path)
{
    char what[200];
    size_t n = strlen(name);
    if (n == 0 || n >= CFG_NAME_MAX) {
        snprintf(what, sizeof what,
                 "guest name must be 1..%u characters, got %zu: the node "
                 "name is the guest's name",
                 CFG_NAME_MAX - 1, n);
        return cfg_fail(x, path, NULL, what);
    }
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (i > 0 && ((c >= '0' && c <= '9') || c == '_' || c == '-'));
        if (!ok) {
            snprintf(what, sizeof what,
                     "guest name must start with a letter and hold only "
                     "letters, digits, '_' and '-' (character %zu is '%c')",
                     i, (c >= 0x20 && c < 0x7f) ? c : '?');
            return cfg_fail(x, path, NULL, what);
        }
    }
    return CFG_OK;
}

static int parse_guests(struct cfg_ctx *x, int node)
{
    char what[160], path[CFG_PATH_MAX];
    int sub, count = 0;
    int rc = cfg_read_props(x, node, "/guests", NULL, 0, NULL, NULL);
    if (rc != CFG_OK)
        return rc;

    fdt_for_each_subnode(sub, x->fdt, node)
        count++;
    if (sub != -FDT_ERR_NOTFOUND)
        return cfg_fail(x, "/guests", NULL, "corrupt subnode list");
    if (count == 0)
        return cfg_fail(x, "/guests", NULL,
                        "no guests: add one node per guest, e.g. "
                        "kiosk0 { image = \"hello\"; ... };");
    if ((unsigned)count > TESSERA_MAX_GUESTS) {
        snprintf(what, sizeof what, "%d guests, at most %u are supported (TESSERA_MAX_GUESTS)",
                 count, TESSERA_MAX_GUESTS);
        return cfg_fail(x, "/guests", NULL, what);
    }

    fdt_for_each_subnode(sub, x->fdt, node) {
        int len;
        const char *name = fdt_get_name(x->fdt, sub, &len);
        if (!name)
            return cfg_fail(x, "/guests", NULL, "unreadable node name (corrupt DTB)");
        snprintf(path, sizeof path, "/guests/%.40s", name);
        for (char *p = path; *p; p++)
            if (*p < 0x20 || *p >= 0x7f)
                *p = '?';
        rc = check_guest_name(x, name, path);
        if (rc != CFG_OK)
            return rc;
        struct cfg_guest *g = &x->out->guest[x->out->n_guests];
        memcpy(g->name, name, strlen(name) + 1);
        uint64_t seen = 0;
        rc = plain_node(x, sub, path, guest_props, N(guest_props), g, &seen);
        if (rc != CFG_OK)
            return rc;
        if (!g->cpus.n)
            g->cpus.n = 1; /* one vCPU, on the boot CPU */
        if (seen & (1ull << GUEST_FRAMEBUFFER))
            x->fb_given |= 1ull << x->out->n_guests;
        if (seen & ((1ull << GUEST_DISPLAY_PX) | (1ull << GUEST_DISPLAY_HZ)))
            x->display_given |= 1ull << x->out->n_guests;
        x->out->n_guests++;
    }
    return CFG_OK;
}

/* The nodes under the root, in the order they are read. */
enum {
    NODE_APPLIANCE,
    NODE_GRAPHICS,
    NODE_DISPLAY,
    NODE_SCHEDULER,
    NODE_BALLOON,
    NODE_GUESTS,
    N_NODES
};
static const char *const node_names[N_NODES] = {
    "appliance", "graphics", "display", "scheduler", "balloon", "guests",
};
static const bool node_required[N_NODES] = {
    [NODE_APPLIANCE] = true,
    [NODE_DISPLAY] = true,
    [NODE_GUESTS] = true,
};

static int parse_node(struct cfg_ctx *x, unsigned which, int node)
{
    struct cfg *c = x->out;
    uint64_t seen = 0;
    int rc;
    switch (which) {
    case NODE_APPLIANCE:
        return plain_node(x, node, "/appliance", appliance_props, N(appliance_props), &c->appliance,
                          NULL);
    case NODE_GRAPHICS:
        return plain_node(x, node, "/graphics", graphics_props, N(graphics_props), &c->graphics,
                          NULL);
    case NODE_DISPLAY:
        return plain_node(x, node, "/display", display_props, N(display_props), &c->display, NULL);
    case NODE_SCHEDULER:
        rc = plain_node(x, node, "/scheduler", scheduler_props, N(scheduler_props), &c->scheduler,
                        &seen);
        x->slice_given = seen & (1u << SCHED_SLICE);
        return rc;
    case NODE_BALLOON:
        rc = plain_node(x, node, "/balloon", balloon_props, N(balloon_props), &c->balloon, &seen);
        x->max_slots_given = seen & (1u << BALLOON_MAX_SLOTS);
        return rc;
    case NODE_GUESTS:
        return parse_guests(x, node);
    }
    return CFG_EINVALID;
}

static void set_defaults(struct cfg *c)
{
    memset(c, 0, sizeof *c);
    c->appliance.reserved_mib = CFG_DEFAULT_RESERVED_MIB;
    c->appliance.aperture_mib = CFG_DEFAULT_APERTURE_MIB;
    c->graphics.sharing = CFG_GM_SHARE_ALL;
    c->scheduler.policy = CFG_SCHED_FAIR;
    c->scheduler.workload_limit_us = CFG_DEFAULT_WORKLOAD_LIMIT_US;
    c->balloon.period_ms = CFG_DEFAULT_PERIOD_MS;
    c->balloon.low_threshold_pct = CFG_DEFAULT_LOW_PCT;
    c->balloon.high_threshold_pct = CFG_DEFAULT_HIGH_PCT;
    c->balloon.min_slots = CFG_DEFAULT_MIN_SLOTS;
    /* slice_us and max_slots depend on other values: set after parsing (check.c). */
}

static int parse_root(struct cfg_ctx *x)
{
    char what[200], shown[48];
    struct root_props rp;
    int node_at[N_NODES];
    int sub;

    int rc = cfg_read_props(x, 0, "/", root_props, N(root_props), &rp, NULL);
    if (rc != CFG_OK)
        return rc;

    for (unsigned i = 0; i < N_NODES; i++)
        node_at[i] = -1;
    fdt_for_each_subnode(sub, x->fdt, 0) {
        int len;
        const char *name = fdt_get_name(x->fdt, sub, &len);
        if (!name)
            return cfg_fail(x, "/", NULL, "unreadable node name (corrupt DTB)");
        unsigned i;
        for (i = 0; i < N_NODES; i++)
            if (strcmp(name, node_names[i]) == 0)
                break;
        snprintf(shown, sizeof shown, "%.40s", name);
        for (char *p = shown; *p; p++)
            if (*p < 0x20 || *p >= 0x7f)
                *p = '?';
        if (i == N_NODES) {
            const char *s = cfg_suggest(name, node_names, N_NODES);
            if (s)
                snprintf(what, sizeof what, "unknown node \"%s\" (did you mean \"%s\"?)", shown, s);
            else
                snprintf(what, sizeof what,
                         "unknown node \"%s\" (known: appliance, graphics, "
                         "display, scheduler, balloon, guests)",
                         shown);
            return cfg_fail(x, "/", NULL, what);
        }
        if (node_at[i] >= 0) {
            snprintf(what, sizeof what, "node \"%s\" appears twice", shown);
            return cfg_fail(x, "/", NULL, what);
        }
        node_at[i] = sub;
    }
    if (sub != -FDT_ERR_NOTFOUND)
        return cfg_fail(x, "/", NULL, "corrupt subnode list");

    for (unsigned i = 0; i < N_NODES; i++) {
        if (node_at[i] < 0) {
            if (node_required[i]) {
                snprintf(what, sizeof what, "missing node \"%s\" (required)", node_names[i]);
                return cfg_fail(x, "/", NULL, what);
            }
            continue;
        }
        rc = parse_node(x, i, node_at[i]);
        if (rc != CFG_OK)
            return rc;
    }
    return CFG_OK;
}

static const char *fdt_problem(int rc)
{
    switch (-rc) {
    case FDT_ERR_BADMAGIC:
        return "bad magic (expected 0xd00dfeed: is this a DTB?)";
    case FDT_ERR_BADVERSION:
        return "unsupported DTB version";
    case FDT_ERR_TRUNCATED:
        return "truncated";
    default:
        return fdt_strerror(rc);
    }
}

int cfg_check_dtb(const void *dtb, size_t len, struct cfg *out, char *err, size_t errlen)
{
    char msg[200];
    void *copy = NULL;
    struct cfg_ctx x = { .out = out, .err = err, .errlen = errlen };
    int rc;

    if (!dtb || !out)
        return cfg_fail_raw(err, errlen, CFG_EBLOB, "DTB: no data");
    if (len < sizeof(struct fdt_header)) {
        snprintf(msg, sizeof msg, "DTB: %zu bytes, shorter than a DTB header (%zu)", len,
                 sizeof(struct fdt_header));
        return cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
    }
    /* libfdt wants the tree 8-byte aligned; a module or file buffer may not be. */
    if ((uintptr_t)dtb & 7u) {
        copy = malloc(len);
        if (!copy)
            return cfg_fail_raw(err, errlen, CFG_ENOMEM, "DTB: out of memory for an aligned copy");
        memcpy(copy, dtb, len);
        dtb = copy;
    }

    rc = fdt_check_header(dtb);
    if (rc != 0) {
        snprintf(msg, sizeof msg, "DTB header: %s", fdt_problem(rc));
        rc = cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
        goto out;
    }
    /* Only the current format (version 17, what dtc writes): libfdt's older-version paths
     * are where malformed trees can still hurt it (fdt_check_full of libfdt 1.6.1 dereferences
     * NULL on a crafted version-2 tree, found by tests/fuzz/fuzz_config_blob.c). */
    if (fdt_version(dtb) != CFG_DTB_VERSION) {
        snprintf(msg, sizeof msg, "DTB header: version %u, expected %u (as dtc writes)",
                 fdt_version(dtb), CFG_DTB_VERSION);
        rc = cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
        goto out;
    }
    if (fdt_totalsize(dtb) > len) {
        snprintf(msg, sizeof msg, "DTB header: totalsize %u but only %zu bytes present",
                 fdt_totalsize(dtb), len);
        rc = cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
        goto out;
    }
    rc = fdt_check_full(dtb, fdt_totalsize(dtb));
    if (rc != 0) {
        snprintf(msg, sizeof msg, "DTB structure: %s", fdt_problem(rc));
        rc = cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
        goto out;
    }

    x.fdt = dtb;
    set_defaults(out);
    rc = parse_root(&x);
    if (rc == CFG_OK)
        rc = cfg_check_semantics(&x);
    if (rc == CFG_OK) {
        out->dtb_bytes = fdt_totalsize(dtb);
        out->dtb_crc32 = crc32_ieee(dtb, out->dtb_bytes);
    }
out:
    free(copy);
    return rc;
}
