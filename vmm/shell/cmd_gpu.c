/* Shell command `gtt`: the graphics-memory map (docs/gtt.md) from gtt/'s live state. */
#include "vmm/shell/commands.h"

#include "vmm/config_boot.h"
#include "vmm/vgpu/host/gpu.h"

#include <stdio.h>

#define MIB(x) ((unsigned long long)((x) >> 20))

static void range_line(const char *what, struct gtt_range r)
{
    printf("  %-22s %#011llx-%#011llx %6llu MiB\n", what, (unsigned long long)r.start,
           (unsigned long long)(r.start + r.size - 1), MIB(r.size));
}

enum shell_status cmd_gtt(int argc, char **argv)
{
    if (!gpu.ready) {
        printf("graphics memory is not set up: %s\n",
               gpu.error[0] ? gpu.error : "no valid configuration");
        return SHELL_OK;
    }
    const struct gtt_layout *l = &gpu.layout;
    const struct gtt *g = &gpu.gtt;
    printf("GGTT %llu MiB (%u entries), aperture %llu MiB, backend %s\n", MIB(l->ggtt_bytes),
           g->n_entries, MIB(l->aperture_bytes), gpu.igpu->ops->name);
    range_line("host area", l->host);
    range_line("fence pool", l->fence_pool);
    range_line("guest low GM", l->low_guest);
    range_line("high GM slots", l->slots);
    printf("low GM windows:\n");
    for (unsigned i = 0; i < l->n_guests; i++) {
        struct gtt_vgpu_summary s;
        if (gtt_vgpu_summarize(g, i, &s) != 0 || !s.exists)
            continue;
        printf("  vgpu %-3u %-15s %#011llx-%#011llx %5llu MiB; slots %u..%u (%u, %u shared)%s\n", i,
               active_config.cfg.guest[i].name, (unsigned long long)s.low.start,
               (unsigned long long)(s.low.start + s.low.size - 1), MIB(s.low.size), s.first_slot,
               s.last_slot, s.n_slots, s.shared_slots, s.active ? ", active" : "");
    }
    printf("slots (vGPUs holding each):\n ");
    for (unsigned s = 0; s < l->n_slots; s++) {
        printf(" %2u:%u", s, g->slot_sharers[s]);
        if (s % 12 == 11 && s + 1 < l->n_slots)
            printf("\n ");
    }
    struct gtt_summary sum;
    gtt_summarize(g, &sum);
    printf(
        "\n%u of %u slots used, %u shared, at most %u vGPUs on one; fence pool %llu of %llu KiB used; "
        "%llu switches, %llu entries copied on switches (%llu read one by one, on switches and ahead), "
        "%llu guest writes refused\n",
        sum.slots_used, sum.n_slots, sum.slots_shared, sum.max_sharing,
        (unsigned long long)(sum.pool_used >> 10), (unsigned long long)(sum.pool_bytes >> 10),
        (unsigned long long)sum.st.switches, (unsigned long long)sum.st.entries_switch,
        (unsigned long long)sum.st.entries_checked, (unsigned long long)sum.st.writes_refused);
    return SHELL_OK;
}
