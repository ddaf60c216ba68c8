/* Shell command `stats`: where the CPU went since boot (docs/operator-guide.md).  Guests: the
 * time their vCPUs ran, their VM exits' handling included; rendering: the software GPU model
 * executing guests' work (0 on a real GPU, which runs by itself); copying: GGTT entries written
 * on switches and ahead of them; composing: the kiosk wall.  The rest is the hypervisor's own
 * loop, the shell and idle time. */
#include "vmm/shell/commands.h"

#include "arch/x86/timer.h"
#include "vmm/vgpu/host/vgpu_host.h"
#include "vmm/display/wall.h"
#include "vmm/shell/shell.h"
#include "vmm/vcpu/vcpu.h"
#include "vmm/vm.h"

#include <stdio.h>

static void share(const char *label, uint64_t part, uint64_t whole)
{
    uint64_t pm = whole ? part * 1000 / whole : 0;
    printf("%s %llu.%llu%%", label, (unsigned long long)(pm / 10), (unsigned long long)(pm % 10));
}

enum shell_status cmd_stats(int argc, char **argv)
{
    uint64_t wall_ns = timer_uptime_us() * 1000, guests = 0;
    for (unsigned i = 0; i < vm_count(); i++)
        for (unsigned k = 0; k < vm_get(i)->n_vcpus; k++)
            guests += vm_get(i)->vcpus[k]->run_ns;
    struct vgpu_render_stats rs = { 0 };
    uint64_t render = 0;
    if (vgpu_host.ready) {
        vgpu_render_stats_get(vgpu_host.dev, &rs);
        render = vgpu_host.gpu_wall_ns;
    }
    uint64_t compose = wall_get_stats()->total_ns, copy = rs.copy_cpu_ns;
    uint64_t used = guests + render + copy + compose;
    uint64_t other = wall_ns > used ? wall_ns - used : 0;
    printf("cpu since boot %llu.%03llu s:", (unsigned long long)(wall_ns / 1000000000),
           (unsigned long long)(wall_ns / 1000000 % 1000));
    share(" guests", guests, wall_ns);
    share(", rendering", render, wall_ns);
    share(", copying", copy, wall_ns);
    share(", composing", compose, wall_ns);
    share(", other", other, wall_ns);
    printf("\nns: wall %llu guests %llu rendering %llu copying %llu composing %llu\n",
           (unsigned long long)wall_ns, (unsigned long long)guests, (unsigned long long)render,
           (unsigned long long)copy, (unsigned long long)compose);
    /* The console's responsiveness: what the operator waits for besides the UART's own rate. */
    struct shell_turns t;
    shell_turns_take(&t);
    printf("shell: %llu turns in %llu ms since the last stats, at most %llu us apart (%llu us "
           "since boot); the last command ran %llu us\n",
           (unsigned long long)t.turns, (unsigned long long)(t.window_ns / 1000000),
           (unsigned long long)(t.longest_gap_ns / 1000),
           (unsigned long long)(t.longest_ever_ns / 1000),
           (unsigned long long)(t.last_ran_ns / 1000));
    return SHELL_OK;
}
