/* The i915 personality's table (personality.h) and its lines for `vgpu <vm>`
 * (docs/operator-guide.md has the format). */
#include "vmm/vgpu/i915/vgpu_i915.h"

#include <stdarg.h>
#include <stdio.h>

/* Appends to buf[0..len) at *pos; output past the end is cut. */
static void put(char *buf, size_t len, size_t *pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
    if (*pos >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
    va_end(ap);
    if (n > 0)
        *pos = *pos + (size_t)n < len ? *pos + (size_t)n : len - 1;
}

static unsigned long long ull(uint64_t x)
{
    return (unsigned long long)x;
}

/* The display's lines: the monitor and the pipe, what plane 1 scans out, the counters. */
static void describe_display(const struct vgpu *v, char *buf, size_t len, size_t *pos)
{
    struct vgpu_i915_display_info d;
    if (!vgpu_i915_display_info(v, &d)) {
        put(buf, len, pos, "  monitor: none (every pipe fused off)\n");
        return;
    }
    put(buf, len, pos, "  monitor: DP-1 %s, %ux%u at %u Hz preferred; pipe A %s",
        d.connected ? "connected" : "disconnected", d.width, d.height, d.hz,
        d.pipe_on ? "on" : "off");
    if (d.pipe_on)
        put(buf, len, pos, " at %u.%03u Hz, frame %u", d.refresh_mhz / 1000, d.refresh_mhz % 1000,
            d.frame);
    put(buf, len, pos, "\n");
    if (d.refused)
        put(buf, len, pos, "  plane 1: refused: %s (no signal, bad surface)\n", d.refused);
    else if (d.scan == VDISP_SCAN_PICTURE)
        put(buf, len, pos, "  plane 1: %ux%u at %u,%u of %ux%u, %s %s, surface %#llx stride %u\n",
            d.plane.w, d.plane.h, d.plane.x, d.plane.y, d.plane.pipe_w, d.plane.pipe_h,
            d.plane.bgr ? "XBGR8888" : "XRGB8888", d.plane.xtiled ? "X-tiled" : "linear",
            ull(d.plane.surf), d.plane.stride);
    else
        put(buf, len, pos, "  plane 1: %s\n", vdisp_scan_result_name(d.scan));
    put(buf, len, pos,
        "  vblanks: frames %llu, vblank events %llu, flips %llu (latched %llu, async %llu), "
        "aux %llu, hotplugs %llu, refusals %llu; not composed:%s%s%s\n",
        ull(d.st.frames), ull(d.st.vblank_events), ull(d.st.flips), ull(d.st.latched),
        ull(d.st.async_flips), ull(d.aux.requests), ull(d.st.hotplugs), ull(d.refusals),
        d.overlays & (1u << VDISP_SPRITE) ? " sprite" : "",
        d.overlays & (1u << VDISP_CURSOR) ? " cursor" : "", d.overlays ? "" : " none");
}

size_t vgpu_i915_describe(const struct vgpu *v, char *buf, size_t len)
{
    static const char *const eng[IGPU_NUM_GT_ENGINES] = { "rcs", "bcs", "vcs", "vecs" };
    struct vgpu_i915_info in;
    size_t pos = 0;
    if (!len || !vgpu_i915_get_info(v, &in))
        return 0;
    const struct vgpu_i915_stats *s = &in.st;
    buf[0] = 0;
    put(buf, len, &pos, "  i915: caps full-ppgtt hwsp-emulation; %s\n", IGPU_CS_LABEL);
    put(buf, len, &pos, "  engines:");
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++)
        put(buf, len, &pos, " %s %llu/%llu/%llu", eng[e], ull(s->elsp[e]), ull(s->completed[e]),
            ull(s->faults[e]));
    put(buf, len, &pos, " (submitted/completed/faults); refused %llu; guest resets %llu\n",
        ull(s->elsp_refused), ull(s->guest_resets));
    put(buf, len, &pos,
        "  mi-only: %llu commands, %llu 3D/media state skipped; msi %llu sent "
        "%llu undelivered\n",
        ull(s->cs_commands), ull(s->cs_state_skipped), ull(s->msi_sent), ull(s->msi_undelivered));
    put(buf, len, &pos,
        "  ppgtt: %llu roots %llu tables (peak %llu); created %llu destroyed %llu "
        "refused %llu; table writes %llu resynced %llu; deferred frees %llu; ggtt refused %llu\n",
        ull(in.ppgtt.roots), ull(in.ppgtt.tables), ull(in.ppgtt.tables_peak), ull(s->ppgtt_creates),
        ull(s->ppgtt_destroys), ull(s->ppgtt_refused), ull(s->table_writes), ull(s->oos_syncs),
        ull(s->deferred_frees), ull(s->ggtt_refused));
    put(buf, len, &pos, "  ppgtt refused:");
    unsigned n = 0;
    for (unsigned r = 1; r < VGT_PPGTT_R_COUNT; r++) {
        if (in.ppgtt.refused[r]) {
            put(buf, len, &pos, " %s %llu", vgt_ppgtt_refusal_name((enum vgt_ppgtt_refusal)r),
                ull(in.ppgtt.refused[r]));
            n++;
        }
    }
    put(buf, len, &pos, "%s\n", n ? "" : " none");
    if (in.fault[0])
        put(buf, len, &pos, "  last engine fault: %s\n", in.fault);
    describe_display(v, buf, len, &pos);
    return pos;
}

const struct vgpu_personality vgpu_i915 = {
    .name = "i915",
    /* What i915_driver_hw_probe() requires (full PPGTT, HWSP emulation), honoured; HUGE_GTT is
     * not offered (the shadow takes 4 KiB pages only). */
    .vgt_caps = VGT_CAPS_FULL_PPGTT | VGT_CAPS_HWSP_EMULATION,
    .ppgtt_contexts = true,
    .init = vgpu_i915_init,
    .free = vgpu_i915_free,
    .reset = vgpu_i915_reset_state,
    .reg_read = vgpu_i915_reg_read,
    .reg_write = vgpu_i915_reg_write,
    .submits = vgpu_i915_submits,
    .g2v = vgpu_i915_g2v,
    .protected_write = vgpu_i915_table_write,
    .scan_config = vgpu_i915_scan_config,
    .shadow_root = vgpu_i915_shadow_pml4,
    .retired = vgpu_i915_bcs_retired,
    /* RCS, VCS and VECS: the MI-only streamer, run on the CPU on the core's schedulers. */
    .cpu_engines = 1u << IGPU_RCS | 1u << IGPU_VCS | 1u << IGPU_VECS,
    .cpu_run = vgpu_i915_cpu_run,
    .cpu_reset = vgpu_i915_cpu_reset,
    .plane_get = vgpu_i915_plane_get,
    .monitor = vgpu_i915_monitor,
    .tick = vgpu_i915_tick,
    .describe = vgpu_i915_describe,
};
