/* Shell commands for the mediated vGPUs: vgpu, sched, weight, balloon, fences.  Formats are in
 * docs/operator-guide.md (tests read them). */
#include "vmm/shell/commands.h"

#include "arch/x86/timer.h"
#include "vmm/config_boot.h"
#include "vmm/vgpu/host/gpu.h"
#include "vmm/vgpu/host/vgpu_host.h"
#include "vmm/vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB(x) ((unsigned long long)((x) >> 20))

static bool ready(void)
{
    if (vgpu_host.ready)
        return true;
    shell_error("no vGPUs: %s",
                vgpu_host.error[0] ? vgpu_host.error : "VT-x or the GPU is not available");
    return false;
}

static struct vm *lookup(const char *arg)
{
    struct vm *vm = vm_lookup(arg);
    if (!vm)
        shell_error("no guest '%s' ('vms' lists them)", arg);
    return vm;
}

static unsigned long long ms(uint64_t ns)
{
    return (unsigned long long)(ns / 1000000);
}

/* ms from the guest's start to t (its vGPU's times are timer_now_ns(): vgpu_host.c env). */
static unsigned long long since_start(const struct vgpu_first_frame *f, uint64_t t)
{
    return ms(t > f->start_ns ? t - f->start_ns : 0);
}

/* The first frame of the guest's current run (docs/operator-guide.md). */
static void first_frame_line(const struct vgpu_first_frame *f)
{
    printf("  first frame: ");
    if (f->done)
        printf("%llu ms after start", since_start(f, f->done_ns));
    else
        printf("none yet, %llu ms after start", since_start(f, timer_now_ns()));
    if (f->submitted)
        printf(" (submitted at %llu ms", since_start(f, f->submit_ns));
    else
        printf(" (nothing submitted");
    if (f->dispatched)
        printf(", on the GPU at %llu ms)\n", since_start(f, f->dispatch_ns));
    else
        printf("%s)\n", f->submitted ? ", not on the GPU yet" : "");
}

static void vgpu_detail(unsigned id)
{
    const struct vgpu *v = vgpu_get(vgpu_host.dev, id);
    struct vgpu_info in;
    vgpu_get_info(v, &in);
    const struct vgpu_stats *s = &in.st;
    printf("vgpu %u (%s): low %#llx+%lluM high %#llx+%lluM slots %u fences %u\n", id,
           vm_get(id)->cfg->name, (unsigned long long)in.low.start, MIB(in.low.size),
           (unsigned long long)in.high.start, MIB(in.high.size), in.slots, in.fences);
    printf(
        "  workloads: submitted %llu queued %u completed %llu rejected %llu dropped %llu resets %llu "
        "gpu %llu ms\n",
        (unsigned long long)s->submitted, in.queued, (unsigned long long)s->completed,
        (unsigned long long)s->rejected, (unsigned long long)s->dropped,
        (unsigned long long)s->resets, ms(s->gpu_ns));
    printf(
        "  ggtt writes %llu refused %llu; fence writes %llu refused %llu work %llu pages; mmio %llu reads "
        "%llu writes (%llu other)\n",
        (unsigned long long)s->ggtt_writes, (unsigned long long)s->ggtt_refused,
        (unsigned long long)s->fence_writes, (unsigned long long)s->fence_refused,
        (unsigned long long)s->fence_work_pages, (unsigned long long)s->mmio_reads,
        (unsigned long long)s->mmio_writes, (unsigned long long)s->other_regs);
    /* Means since boot; tools diff two readings for an interval (docs/operator-guide.md). */
    printf(
        "  latency: %llu timed, wait %llu us, submit to done %llu us (means); rendering cpu %llu ms, "
        "copying cpu %llu us\n",
        (unsigned long long)s->timed,
        (unsigned long long)(s->timed ? s->wait_ns / s->timed / 1000 : 0),
        (unsigned long long)(s->timed ? s->turnaround_ns / s->timed / 1000 : 0),
        ms(s->render_cpu_ns), (unsigned long long)(s->copy_cpu_ns / 1000));
    printf("  scanning: %llu ms in all, %llu us at most, next estimated %llu us\n", ms(s->scan_ns),
           (unsigned long long)(s->scan_max_ns / 1000),
           (unsigned long long)(s->scan_est_ns / 1000));
    if (s->cpu_submitted) {
        /* Engines run on the CPU (the i915 guest's RCS/VCS/VECS): charged like rendering. */
        printf("  cpu engines: submitted %llu completed %llu; cpu",
               (unsigned long long)s->cpu_submitted, (unsigned long long)s->cpu_completed);
        for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++)
            if (e != IGPU_BCS)
                printf(" %s %llu ms", igpu_engine_name((enum igpu_engine)e),
                       ms(s->cpu_engine_ns[e]));
        printf("; longest step %llu us\n", (unsigned long long)(s->cpu_step_max_ns / 1000));
    }
    first_frame_line(&s->first);
    printf("  balloon requests %llu granted %llu refused %llu\n",
           (unsigned long long)s->balloon_requests, (unsigned long long)s->balloon_granted,
           (unsigned long long)s->balloon_refused);
    if (in.display_enabled)
        printf("  display: %ux%u stride %u at %#llx\n", in.fb_width, in.fb_height, in.fb_stride,
               (unsigned long long)in.fb_gm);
    else
        printf("  display: off\n");
    char more[2048];
    if (vgpu_describe(v, more, sizeof more))
        fputs(more, stdout);
    for (unsigned i = 0; i < in.n_rejects; i++)
        printf("  rejected: [%s] %s\n", vgpu_reject_name(in.rejects[i].code), in.rejects[i].why);
}

enum shell_status cmd_vgpu(int argc, char **argv)
{
    if (!ready())
        return SHELL_FAILED;
    if (argc == 2) {
        struct vm *vm = lookup(argv[1]);
        if (!vm)
            return SHELL_FAILED;
        vgpu_detail(vm->id);
        return SHELL_OK;
    }
    printf("%3s %-15s %8s %6s %9s %9s %8s %6s %9s %8s %8s\n", "id", "name", "low MiB", "slots",
           "submitted", "completed", "rejected", "resets", "ggtt-ref", "gpu ms", "first ms");
    for (unsigned i = 0; i < vm_count(); i++) {
        struct vgpu_info in;
        vgpu_get_info(vgpu_get(vgpu_host.dev, i), &in);
        if (!in.exists)
            continue;
        printf("%3u %-15s %8llu %6u %9llu %9llu %8llu %6llu %9llu %8llu ", i, vm_get(i)->cfg->name,
               MIB(in.low.size), in.slots, (unsigned long long)in.st.submitted,
               (unsigned long long)in.st.completed, (unsigned long long)in.st.rejected,
               (unsigned long long)in.st.resets, (unsigned long long)in.st.ggtt_refused,
               ms(in.st.gpu_ns));
        if (in.st.first.done)
            printf("%8llu\n", since_start(&in.st.first, in.st.first.done_ns));
        else
            printf("%8s\n", "-");
    }
    return SHELL_OK;
}

static void ppm(const char *label, uint32_t v)
{
    printf("%s%u.%03u", label, v / 1000000, (v % 1000000) / 1000);
}

static unsigned long long u(uint64_t x)
{
    return (unsigned long long)x;
}

/* Predictive copying and re-placement since boot (docs/operator-guide.md `sched`). */
static void sched_copy_line(const struct vgpu_render_stats *rs)
{
    printf(
        "copy: ahead %llu used %llu wasted; %llu us on switches, %llu us ahead; re-placement: %llu periods, "
        "%llu moves of %llu asked (%llu busy, %llu withdrawn, %llu refused), %llu entries; floor %llu per switch "
        "(%llu as held), sums %llu %llu over %llu switches; %llu busy\n",
        u(rs->ahead_used), u(rs->ahead_wasted), u(rs->copy_switch_ns / 1000),
        u(rs->copy_ahead_ns / 1000), u(rs->place_periods), u(rs->moves_done), u(rs->moves_asked),
        u(rs->moves_busy), u(rs->moves_withdrawn), u(rs->moves_refused), u(rs->entries_move),
        u(rs->floor_switches ? rs->floor_entries / rs->floor_switches : 0),
        u(rs->floor_switches ? rs->floor_held_entries / rs->floor_switches : 0),
        u(rs->floor_entries), u(rs->floor_held_entries), u(rs->floor_switches), u(rs->busy_vgpus));
}

enum shell_status cmd_sched(int argc, char **argv)
{
    if (!ready())
        return SHELL_FAILED;
    struct sched *s = vgpu_host.sched;
    if (argc == 2) {
        if (strcmp(argv[1], "reset"))
            return SHELL_USAGE;
        sched_metrics_reset(s);
        printf("sched: measurement restarted\n");
        return SHELL_OK;
    }
    struct sched_metrics m;
    sched_metrics_get(s, &m);
    struct vgpu_render_stats rs;
    vgpu_render_stats_get(vgpu_host.dev, &rs);
    printf("policy %s, interval %llu ms, GPU busy %llu ms", sched_policy_name(sched_get_policy(s)),
           ms(m.elapsed_ns), ms(m.busy_ns));
    ppm(", utilisation ", m.utilisation_ppm);
    if (m.backlogged >= 2) {
        ppm(", MMR ", m.mmr_ppm);
        ppm(", Jain ", m.jain_ppm);
    } else {
        printf(", MMR -, Jain -"); /* fewer than two competed: nothing to compare */
    }
    printf(" over %u backlogged of %u\n", m.backlogged, m.vgpus);
    printf(
        "turns %llu, switches %llu, runaways %llu; render: dispatches %llu, workloads %llu, GGTT entries "
        "%llu on switches (%llu per switch), %llu ahead; preemptions %llu, drains %llu (%llu busy)\n",
        (unsigned long long)m.turns, (unsigned long long)m.switches, (unsigned long long)m.runaways,
        (unsigned long long)rs.dispatches, (unsigned long long)rs.workloads,
        (unsigned long long)rs.entries_switch,
        (unsigned long long)(rs.switches ? rs.entries_switch / rs.switches : 0),
        (unsigned long long)rs.entries_predict, (unsigned long long)rs.preemptions,
        (unsigned long long)rs.drains, (unsigned long long)rs.drains_busy);
    sched_copy_line(&rs);
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++) {
        struct vgpu_cpu_engine_stats es;
        vgpu_cpu_engine_stats_get(vgpu_host.dev, (enum igpu_engine)e, &es);
        if (es.dispatches)
            printf(
                "%s on the cpu: busy %llu ms, dispatches %llu, switches %llu, workloads %llu, preemptions "
                "%llu, watchdog resets %llu, faults %llu\n",
                igpu_engine_name((enum igpu_engine)e), ms(es.busy_ns),
                (unsigned long long)es.dispatches, (unsigned long long)es.switches,
                (unsigned long long)es.workloads, (unsigned long long)es.preemptions,
                (unsigned long long)es.watchdog_resets, (unsigned long long)es.faults);
    }
    printf("%3s %-15s %6s %12s %9s %7s %7s %7s %5s %8s\n", "id", "name", "weight", "vtime",
           "gpu ms", "share", "ideal", "ratio", "queue", "backlog");
    for (unsigned i = 0; i < vm_count(); i++) {
        struct sched_vgpu_stats v;
        if (sched_vgpu_stats_get(s, i, &v) != SCHED_OK)
            continue;
        printf("%3u %-15s %6u %12lld %9llu", i, vm_get(i)->cfg->name, v.weight,
               (long long)sched_vgpu_key(s, i), ms(v.gpu_ns));
        ppm(" ", v.share_ppm);
        if (v.backlogged) {
            uint32_t ratio = v.ideal_ppm ? (uint32_t)((uint64_t)v.share_ppm * 1000000 / v.ideal_ppm)
                                         : 0;
            ppm("   ", v.ideal_ppm);
            ppm("   ", ratio);
        } else {
            printf("   %5s   %5s", "-", "-");
        }
        uint32_t bl = m.elapsed_ns ? (uint32_t)(v.backlog_ns * 1000 / m.elapsed_ns) : 0;
        printf(" %5u %5u.%u%%\n", sched_vgpu_queued(s, i), bl / 10, bl % 10);
    }
    return SHELL_OK;
}

enum shell_status cmd_weight(int argc, char **argv)
{
    if (!ready())
        return SHELL_FAILED;
    struct vm *vm = lookup(argv[1]);
    if (!vm)
        return SHELL_FAILED;
    char *end;
    unsigned long w = strtoul(argv[2], &end, 10);
    if (*end || w < 1 || w > 1000) {
        shell_error("weight must be 1..1000, as in the configuration");
        return SHELL_FAILED;
    }
    int rc = vgpu_set_weight(vgpu_host.dev, vm->id, (uint32_t)w);
    if (rc != SCHED_OK) {
        shell_error("%s", sched_strerror(rc));
        return SHELL_FAILED;
    }
    printf("%s: weight %lu\n", vm->cfg->name, w);
    return SHELL_OK;
}

enum shell_status cmd_balloon(int argc, char **argv)
{
    if (!ready())
        return SHELL_FAILED;
    if (argc == 3) {
        struct vm *vm = lookup(argv[1]);
        if (!vm)
            return SHELL_FAILED;
        char *end;
        long d = strtol(argv[2], &end, 10);
        if (*end || (argv[2][0] != '+' && argv[2][0] != '-') || d == 0 || d < -64 || d > 64)
            return SHELL_USAGE;
        char err[120];
        if (vgpu_balloon_adjust(vgpu_host.dev, vm->id, (int)d, err, sizeof err) != 0) {
            shell_error("%s: balloon %+ld refused: %s", vm->cfg->name, d, err);
            return SHELL_FAILED;
        }
        struct vgpu_info in;
        vgpu_get_info(vgpu_get(vgpu_host.dev, vm->id), &in);
        printf("%s: balloon %+ld: %u slots, high %#llx+%lluM\n", vm->cfg->name, d, in.slots,
               (unsigned long long)in.high.start, MIB(in.high.size));
        return SHELL_OK;
    }
    if (argc != 1)
        return SHELL_USAGE;
    struct vgpu_render_stats rs;
    vgpu_render_stats_get(vgpu_host.dev, &rs);
    const struct cfg_balloon *b = &active_config.cfg.balloon;
    printf(
        "balloon controller %s, period %u ms, thresholds %u%%/%u%%; periods %llu, events %llu; last W %u.%03u%% "
        "R_copy %u.%03u%% f %u.%03u\n",
        b->enabled ? "on" : "off", b->period_ms, b->low_threshold_pct, b->high_threshold_pct,
        (unsigned long long)rs.balloon_periods, (unsigned long long)rs.balloon_events,
        vgpu_host.last_w_ppm / 10000, vgpu_host.last_w_ppm / 10 % 1000,
        vgpu_host.last_rcopy_ppm / 10000, vgpu_host.last_rcopy_ppm / 10 % 1000,
        rs.last_period.f / 1000, rs.last_period.f % 1000);
    for (unsigned i = 0; i < vm_count(); i++) {
        struct vgpu_info in;
        vgpu_get_info(vgpu_get(vgpu_host.dev, i), &in);
        if (in.exists)
            printf("%3u %-15s slots %u high %#llx+%lluM requests %llu granted %llu refused %llu\n",
                   i, vm_get(i)->cfg->name, in.slots, (unsigned long long)in.high.start,
                   MIB(in.high.size), (unsigned long long)in.st.balloon_requests,
                   (unsigned long long)in.st.balloon_granted,
                   (unsigned long long)in.st.balloon_refused);
    }
    return SHELL_OK;
}

enum shell_status cmd_fences(int argc, char **argv)
{
    if (!ready())
        return SHELL_FAILED;
    struct gtt_summary s;
    gtt_summarize(&gpu.gtt, &s);
    printf(
        "fence pool %#llx+%lluM: %llu KiB used in %u ranges, largest free %llu KiB; physical fences used %#x\n",
        (unsigned long long)gpu.layout.fence_pool.start, MIB(gpu.layout.fence_pool.size),
        (unsigned long long)(s.pool_used >> 10), s.pool_ranges,
        (unsigned long long)(s.pool_largest_free >> 10), gpu.gtt.phys_fence_busy);
    for (unsigned i = 0; i < vm_count(); i++) {
        const struct gtt_vgpu *v = gtt_vgpu_get(&gpu.gtt, i);
        struct gtt_vgpu_summary vs;
        if (!v || gtt_vgpu_summarize(&gpu.gtt, i, &vs) != 0)
            continue;
        printf("  %-15s share %llu KiB: %llu KiB used by %u fences, %u pending\n",
               vm_get(i)->cfg->name, (unsigned long long)(vs.fence_share >> 10),
               (unsigned long long)(vs.fence_bytes >> 10), vs.fences_active, vs.fences_pending);
        for (unsigned f = 0; f < v->n_fences; f++) {
            const struct gtt_vfence *x = &v->fence[f];
            if (!x->pooled)
                continue;
            printf("  %-15s fence %u: guest %#llx+%lluK -> pool %#llx, physical fence %u\n",
                   vm_get(i)->cfg->name, f, (unsigned long long)x->guest.start,
                   (unsigned long long)(x->guest.size >> 10), (unsigned long long)x->pool_start,
                   x->phys_reg);
        }
    }
    return SHELL_OK;
}
