/* Rules that depend on what a guest boots (`kernel`): the properties only a Linux guest takes,
 * the RAM a Linux kernel needs at the least, how long each kind's command line may be, and the
 * Linux framebuffer's default size.  These look at the configuration alone; the rules that need
 * the kernel and initramfs files themselves are in modules.c. */
#include <stdio.h>
#include <string.h>

#include "config/internal.h"
#include "tessera/abi/guest.h"
#include "lib/edid.h"

/* The framebuffer is memory the hypervisor holds outside the guest's RAM (the wall reads it like
 * a vGPU plane), so its size is bounded: 32 MiB is 4096x2048 at 32 bits per pixel. */
#define CFG_FB_MAX_BYTES    (32ull << 20)
#define CFG_FB_BYTES_PER_PX 4u

static int check_tessera(struct cfg_ctx *x, unsigned i, const char *path)
{
    const struct cfg_guest *g = &x->out->guest[i];
    char what[200];
    if (g->initrd[0])
        return cfg_fail(x, path, "initrd",
                        "only a Linux guest (kernel = \"linux\") takes an "
                        "initrd; a Tessera guest boots its ELF image alone");
    if (g->fb_width_px)
        return cfg_fail(x, path, "framebuffer-px",
                        "only a Linux guest (kernel = \"linux\") has "
                        "a linear framebuffer; a Tessera guest draws through its vGPU");
    if (g->vgpu == CFG_VGPU_I915)
        return cfg_fail(x, path, "vgpu",
                        "only a Linux guest (kernel = \"linux\") runs i915; a "
                        "Tessera guest drives the vGPU of docs/vgpu-abi.md");
    if (g->vgpu_display != CFG_DISPLAY_NONE || (x->display_given & (1ull << i)))
        return cfg_fail(x, path, "vgpu-display",
                        "only an i915 vGPU (vgpu = \"i915\") has a "
                        "virtual monitor; a Tessera guest's picture is its plane");
    if (g->cpus.n > 1)
        return cfg_fail(x, path, "cpus",
                        "a Tessera guest has one vCPU: name one CPU; only a Linux guest "
                        "(kernel = \"linux\") takes several");
    size_t n = strlen(g->cmdline);
    if (n > TESSERA_GUEST_CMDLINE_MAX - 1) {
        snprintf(what, sizeof what,
                 "%zu characters; a Tessera guest's boot information holds "
                 "at most %u (docs/guest-abi.md)",
                 n, (unsigned)TESSERA_GUEST_CMDLINE_MAX - 1u);
        return cfg_fail(x, path, "cmdline", what);
    }
    return CFG_OK;
}

static int check_linux(struct cfg_ctx *x, unsigned i, const char *path)
{
    struct cfg_guest *g = &x->out->guest[i];
    char what[200];
    if (g->ram_mib < CFG_LINUX_RAM_MIN_MIB) {
        snprintf(what, sizeof what,
                 "a Linux guest needs at least %u MiB (its kernel is "
                 "decompressed at 16 MiB and then runs its initramfs), got %u",
                 CFG_LINUX_RAM_MIN_MIB, g->ram_mib);
        return cfg_fail(x, path, "ram-mib", what);
    }
    if (!g->fb_width_px) {
        g->fb_width_px = g->tile.width;
        g->fb_height_px = g->tile.height;
    }
    uint64_t bytes = (uint64_t)g->fb_width_px * g->fb_height_px * CFG_FB_BYTES_PER_PX;
    if (bytes > CFG_FB_MAX_BYTES) {
        snprintf(what, sizeof what,
                 "%ux%u at %u bytes per pixel is %llu KiB, at most %llu KiB "
                 "(the hypervisor holds it outside the guest's RAM)%s",
                 g->fb_width_px, g->fb_height_px, CFG_FB_BYTES_PER_PX,
                 (unsigned long long)(bytes >> 10), (unsigned long long)(CFG_FB_MAX_BYTES >> 10),
                 x->fb_given & (1ull << i) ? ""
                                           : "; it defaults to the tile's size, set "
                                             "framebuffer-px = <w h> smaller");
        return cfg_fail(x, path, "framebuffer-px", what);
    }
    return CFG_OK;
}

/* The i915 vGPU's virtual monitor: its properties only with vgpu-display = "dp"; a mode i915
 * accepts at the refresh asked for (the same generator the vGPU uses, lib/edid.h). */
static int check_display(struct cfg_ctx *x, unsigned i, const char *path)
{
    struct cfg_guest *g = &x->out->guest[i];
    char what[200];
    struct edid_mode m;
    if (g->vgpu_display == CFG_DISPLAY_NONE) {
        if (x->display_given & (1ull << i))
            return cfg_fail(x, path, "display-px",
                            "display-px and display-hz describe the virtual "
                            "monitor: set vgpu-display = \"dp\" too");
        return CFG_OK;
    }
    if (g->vgpu != CFG_VGPU_I915)
        return cfg_fail(x, path, "vgpu-display",
                        "a virtual monitor is part of the i915 vGPU: set "
                        "vgpu = \"i915\" too");
    if (!g->display_width_px) {
        g->display_width_px = g->tile.width;
        g->display_height_px = g->tile.height;
    }
    if (!g->display_hz)
        g->display_hz = CFG_DISPLAY_DEFAULT_HZ;
    if (!edid_mode_make(g->display_width_px, g->display_height_px, g->display_hz, &m) ||
        !edid_mode_make(EDID_ALT_WIDTH, EDID_ALT_HEIGHT, g->display_hz, &m)) {
        snprintf(what, sizeof what,
                 "%ux%u at %u Hz: no mode i915 accepts (each side %u..%u pixels, "
                 "a pixel clock of at most %u MHz)%s",
                 g->display_width_px, g->display_height_px, g->display_hz, EDID_MIN_SIDE,
                 EDID_MAX_WIDTH, EDID_MAX_CLOCK_KHZ / 1000,
                 x->display_given & (1ull << i) ? "" : "; it defaults to the tile's size");
        return cfg_fail(x, path, "display-px", what);
    }
    return CFG_OK;
}

int cfg_check_guest_kinds(struct cfg_ctx *x)
{
    const struct cfg *c = x->out;
    char path[CFG_PATH_MAX];
    for (unsigned i = 0; i < c->n_guests; i++) {
        cfg_guest_path(c, i, path);
        int rc = c->guest[i].kind == CFG_GUEST_LINUX ? check_linux(x, i, path)
                                                     : check_tessera(x, i, path);
        if (rc == CFG_OK && c->guest[i].kind == CFG_GUEST_LINUX)
            rc = check_display(x, i, path);
        if (rc != CFG_OK)
            return rc;
    }
    return CFG_OK;
}
