/* The active configuration as readable text: the boot log's one line per guest and the shell's
 * `config` command.  The formats are documented in docs/config.md ("What the hypervisor
 * prints"); tests and tools read them, so change them together. */
#include <stdio.h>

#include "config/config.h"

static const char *const policy_names[] = { "fair", "rr", "credit", "las" };
static const char *const sharing_names[] = { "all", "high", "none" };
static const char *const kind_names[] = { "tessera", "linux" };

const char *cfg_sched_policy_name(uint32_t policy)
{
    return policy < sizeof policy_names / sizeof policy_names[0] ? policy_names[policy] : "?";
}

const char *cfg_gm_sharing_name(uint32_t sharing)
{
    return sharing < sizeof sharing_names / sizeof sharing_names[0] ? sharing_names[sharing] : "?";
}

const char *cfg_guest_kind_name(uint32_t kind)
{
    return kind < sizeof kind_names / sizeof kind_names[0] ? kind_names[kind] : "?";
}

int cfg_guest_summary(const struct cfg *c, unsigned id, char *buf, size_t len)
{
    if (!c || id >= c->n_guests || id >= TESSERA_MAX_GUESTS)
        return snprintf(buf, len, "guest %u: no such guest", id);
    const struct cfg_guest *g = &c->guest[id];
    char linux_part[CFG_IMAGE_MAX + 112] = "", fences[40] = "", display[48] = "";
    char cpu[16 + 3 * CFG_VCPUS_MAX] = "";
    if (g->cpus.n > 1) {
        size_t at = (size_t)snprintf(cpu, sizeof cpu, ", cpus");
        for (uint32_t i = 0; i < g->cpus.n && i < CFG_VCPUS_MAX && at < sizeof cpu; i++)
            at += (size_t)snprintf(cpu + at, sizeof cpu - at, " %u", g->cpus.cpu[i]);
    } else if (g->cpus.cpu[0]) {
        snprintf(cpu, sizeof cpu, ", cpu %u", g->cpus.cpu[0]);
    }
    if (g->vgpu_display == CFG_DISPLAY_DP)
        snprintf(display, sizeof display, ", display dp %ux%u@%u", g->display_width_px,
                 g->display_height_px, g->display_hz);
    if (g->kind == CFG_GUEST_LINUX)
        snprintf(linux_part, sizeof linux_part, ", initrd %s, framebuffer %ux%u%s%s",
                 g->initrd[0] ? g->initrd : "none", g->fb_width_px, g->fb_height_px,
                 g->vgpu == CFG_VGPU_I915 ? ", vgpu i915" : "", display);
    if (g->fence_pool_kib)
        snprintf(fences, sizeof fences, ", fence pool %u KiB", g->fence_pool_kib);
    return snprintf(buf, len,
                    "guest %u %s: %simage %s%s, RAM %u MiB, GM low %u + high %u MiB%s, weight %u, "
                    "tile %u,%u %ux%u%s, console %s, autostart %s%s%s%s",
                    id, g->name, g->kind == CFG_GUEST_LINUX ? "linux " : "", g->image, linux_part,
                    g->ram_mib, g->low_gm_mib, g->high_gm_mib, fences, g->weight, g->tile.x,
                    g->tile.y, g->tile.width, g->tile.height, cpu, g->console ? "on" : "off",
                    g->autostart ? "on" : "off", g->cmdline[0] ? ", cmdline \"" : "", g->cmdline,
                    g->cmdline[0] ? "\"" : "");
}

void cfg_format(const struct cfg *c, const char *source, cfg_line_fn line, void *ctx)
{
    char buf[CFG_CMDLINE_MAX + 200];
    uint64_t ram = 0;
    for (unsigned i = 0; i < c->n_guests && i < TESSERA_MAX_GUESTS; i++)
        ram += c->guest[i].ram_mib;

    snprintf(buf, sizeof buf, "config%s%s%s: %s, %u guests, DTB %u bytes, CRC-32 0x%08x",
             source ? " (" : "", source ? source : "", source ? ")" : "", CFG_COMPATIBLE,
             c->n_guests, c->dtb_bytes, c->dtb_crc32);
    line(ctx, buf);
    snprintf(buf, sizeof buf,
             "appliance: model \"%s\", RAM %u MiB, reserved %u MiB, guests use %llu of %u MiB, "
             "aperture %u MiB",
             c->appliance.model, c->appliance.ram_mib, c->appliance.reserved_mib,
             (unsigned long long)ram, c->appliance.ram_mib - c->appliance.reserved_mib,
             c->appliance.aperture_mib);
    line(ctx, buf);
    if (c->graphics.max_share)
        snprintf(buf, sizeof buf, "graphics: sharing %s, max-share %u, %u slots of %u MiB",
                 cfg_gm_sharing_name(c->graphics.sharing), c->graphics.max_share, c->n_slots,
                 (unsigned)CFG_SLOT_MIB);
    else
        snprintf(buf, sizeof buf, "graphics: sharing %s, max-share none, %u slots of %u MiB",
                 cfg_gm_sharing_name(c->graphics.sharing), c->n_slots, (unsigned)CFG_SLOT_MIB);
    line(ctx, buf);
    snprintf(buf, sizeof buf, "display: wall %ux%u px", c->display.width_px, c->display.height_px);
    line(ctx, buf);
    char render[32] = "";
    if (c->scheduler.render_cpu)
        snprintf(render, sizeof render, ", render loop on cpu %u", c->scheduler.render_cpu);
    snprintf(buf, sizeof buf, "scheduler: %s, slice %u us, workload limit %u us%s",
             cfg_sched_policy_name(c->scheduler.policy), c->scheduler.slice_us,
             c->scheduler.workload_limit_us, render);
    line(ctx, buf);
    snprintf(buf, sizeof buf,
             "balloon: %s, period %u ms, thresholds %u%%/%u%%, slots %u..%u per guest",
             c->balloon.enabled ? "on" : "off", c->balloon.period_ms, c->balloon.low_threshold_pct,
             c->balloon.high_threshold_pct, c->balloon.min_slots, c->balloon.max_slots);
    line(ctx, buf);
    for (unsigned i = 0; i < c->n_guests && i < TESSERA_MAX_GUESTS; i++) {
        cfg_guest_summary(c, i, buf, sizeof buf);
        line(ctx, buf);
    }
}
