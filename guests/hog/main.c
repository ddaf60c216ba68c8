/* hog: a guest that takes more than its share of what the guests share, without breaking any
 * memory boundary.  One attack per boot, chosen on the command line:
 *
 *   attack=idle            nothing: the "idle neighbour" the victim's own frame rate is
 *                          measured beside
 *   attack=drain-runaway   back-to-back runaway workloads (far longer than the watchdog
 *                          allows), so that one is on the GPU whenever the balloon controller's
 *                          period drains it
 *   attack=fence-storm     rewrites its largest fence (32 MiB) and clears it, in a loop: each
 *                          write is thousands of page-table updates in the hypervisor
 *   attack=giant-blit      one blit per workload, several times longer than the watchdog
 *   attack=long-work       back-to-back legal workloads of about 110 ms of GPU time each (one
 *                          blit sized by measuring this vGPU), under the 200 ms watchdog
 *   attack=fence-hog       takes as much of the fence pool as it is given and holds it
 *   attack=log-flood       refused workloads, GGTT writes and fence writes as fast as it can,
 *                          each of which the hypervisor logs
 *   attack=noop-reject     batches that fill the 16 KiB batch copy with MI_NOOPs and end in a
 *                          forbidden command: scanned to the end, then refused
 *   attack=elsp-foreign    ELSP writes naming a context in the hypervisor's graphics memory
 *   attack=noop-flood      legal workloads of two MI_NOOPs, as fast as the ring takes them
 *   attack=seq             the attacks named by attacks=a,b,... one after the other, each for
 *                          attack_s seconds (default 20) after quiet_s seconds of nothing
 *                          (default 15), then nothing:
 *                            hog: seq <name> begins t <ms>
 *                            hog: seq <name> ends t <ms>
 *                            hog: seq done t <ms>
 *
 *   hog: vgpu ready tile WxH low 0x...+0x... high 0x...+0x...
 *   hog: attack <name>: <what it does>
 *   hog: <name> t <ms> <counters>          every 2 s
 *
 * role=victim makes it the victim instead (victim.c), role=pacer the ordinary victim (pacer.c).
 * Command line of the attacks:
 * target_ms=N (long-work's workload, default 110), giant_ms=N (giant-blit's at least, default
 * 600), inflight=N (workloads kept in flight, default 2). */
#include "guests/hog/hog.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_BG    0x804000u
#define BACKING_BYTES (1u << 20) /* RAM behind every big surface */

struct vgpu_kiosk k;

uint64_t hog_measure_fill_ns(uint64_t pixels)
{
    struct vgpu *v = &k.v;
    static struct vgpu_bo ts;
    uint64_t gm;
    uint32_t w = HOG_PITCH_PX, h = (uint32_t)((pixels + w - 1) / w);
    if ((!ts.gm && !vgpu_bo_alloc(v, &ts, VGPU_PAGE, VGPU_GM_LOW)) || !hog_big_surface(h, &gm))
        return 0;
    uint32_t dw[2 * GEN9_MI_SRM_LEN + GEN9_XY_COLOR_BLT_LEN];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, sizeof dw / sizeof dw[0]);
    vgpu_emit_srm(&cb, GEN9_RING_CTX_TIMESTAMP(GEN9_BCS_BASE), ts.gm);
    vgpu_emit_color_blt(&cb, gm, w * 4u, 0, 0, w, h, 0x123456u);
    vgpu_emit_srm(&cb, GEN9_RING_CTX_TIMESTAMP(GEN9_BCS_BASE), ts.gm + 4);
    uint32_t seqno = vgpu_submit(v, dw, cb.n);
    struct vgpu_outcome o;
    if (!seqno || vgpu_wait(v, seqno, 60u * 1000u * 1000u, &o) != VGPU_OK)
        return 0;
    const volatile uint32_t *t = vgpu_bo_cpu(&ts);
    uint32_t hz = gen9_cs_timestamp_hz(vgpu_read32(v, GEN9_CTC_MODE),
                                       vgpu_read32(v, GEN9_TIMESTAMP_OVERRIDE));
    return hz ? (uint64_t)(t[1] - t[0]) * 1000000000ull / hz : 0;
}

bool hog_big_surface(uint32_t rows, uint64_t *gm)
{
    static struct vgpu_bo backing;
    static uint64_t mapped_gm, mapped_bytes;
    static struct vgpu_alloc *mapped_in;
    struct vgpu *v = &k.v;
    uint64_t bytes = (uint64_t)HOG_PITCH_PX * 4u * rows;
    if (mapped_bytes >= bytes) {
        *gm = mapped_gm;
        return true;
    }
    if (!backing.gm && !vgpu_bo_alloc(v, &backing, BACKING_BYTES, VGPU_GM_LOW))
        return false;
    if (mapped_in && vgpu_wait_idle(v, 60u * 1000u * 1000u) == VGPU_OK) {
        vgpu_alloc_put(mapped_in, mapped_gm); /* the old one is too small */
        mapped_in = NULL;
        mapped_bytes = 0;
    }
    struct vgpu_alloc *a = &v->high;
    if (!vgpu_alloc_get(a, bytes, VGPU_PAGE, gm)) {
        a = &v->low;
        if (!vgpu_alloc_get(a, bytes, VGPU_PAGE, gm))
            return false;
    }
    for (uint64_t off = 0; off < bytes; off += BACKING_BYTES)
        if (!vgpu_ggtt_map(v, *gm + off, backing.gpa,
                           bytes - off < BACKING_BYTES ? bytes - off : BACKING_BYTES))
            return false;
    mapped_in = a;
    mapped_gm = *gm;
    mapped_bytes = bytes;
    return true;
}

uint32_t hog_max_rows(void)
{
    uint64_t room = k.v.high_size > k.v.low_size / 2 ? k.v.high_size : k.v.low_size / 2;
    return (uint32_t)(room / (HOG_PITCH_PX * 4u));
}

uint64_t hog_target_ms = 110, hog_giant_ms = 600, hog_inflight = 2;

static const struct {
    const char *name;
    void (*run)(void);
} attacks[] = {
    { "idle", attack_idle },
    { "drain-runaway", attack_drain_runaway },
    { "fence-storm", attack_fence_storm },
    { "giant-blit", attack_giant_blit },
    { "long-work", attack_long_work },
    { "fence-hog", attack_fence_hog },
    { "log-flood", attack_log_flood },
    { "noop-reject", attack_noop_reject },
    { "elsp-foreign", attack_elsp_foreign },
    { "noop-flood", attack_noop_flood },
};

static void (*attack_named(const char *name, size_t len))(void)
{
    for (unsigned i = 0; i < sizeof attacks / sizeof attacks[0]; i++)
        if (strlen(attacks[i].name) == len && strncmp(name, attacks[i].name, len) == 0)
            return attacks[i].run;
    return NULL;
}

/* attack=seq: each named attack after a quiet time, so the victim's rate just before it can be
 * compared with its rate during it. */
static int sequence(const struct tessera_boot_info *boot)
{
    char list[256];
    uint64_t quiet_s = 15, attack_s = 20;
    guest_cmdline_u64(boot, "quiet_s", &quiet_s);
    guest_cmdline_u64(boot, "attack_s", &attack_s);
    if (guest_cmdline_get(boot, "attacks", list, sizeof list) <= 0) {
        printf(HOG ": seq: no attacks= list\n");
        return 2;
    }
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (!attack_named(p, n)) {
            printf(HOG ": unknown attack '%.*s'\n", (int)n, p);
            return 2;
        }
        p += n + (p[n] == ',');
    }
    if (!vgpu_kiosk_start(&k, boot, HOG, DEFAULT_BG))
        return 1;
    uint32_t inflight = k.v.max_inflight;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        guest_sleep_us(quiet_s * 1000000u);
        k.v.max_inflight = hog_inflight >= 1 && hog_inflight <= VGPU_MAX_INFLIGHT
                             ? (unsigned)hog_inflight
                             : inflight;
        printf(HOG ": seq %.*s begins t %" PRIu64 "\n", (int)n, p, guest_now_us() / 1000u);
        hog_until_us = guest_now_us() + attack_s * 1000000u;
        attack_named(p, n)();
        printf(HOG ": seq %.*s ends t %" PRIu64 "\n", (int)n, p, guest_now_us() / 1000u);
        p += n + (p[n] == ',');
    }
    printf(HOG ": seq done t %" PRIu64 "\n", guest_now_us() / 1000u);
    hog_until_us = UINT64_MAX;
    attack_idle();
    return 0;
}


int guest_main(const struct tessera_boot_info *boot)
{
    char which[32];
    if (guest_cmdline_get(boot, "role", which, sizeof which) > 0 && strcmp(which, "victim") == 0)
        return victim_main(boot);
    if (guest_cmdline_get(boot, "role", which, sizeof which) > 0 && strcmp(which, "pacer") == 0)
        return pacer_main(boot);
    if (guest_cmdline_get(boot, "attack", which, sizeof which) <= 0)
        strcpy(which, "idle");
    guest_cmdline_u64(boot, "target_ms", &hog_target_ms);
    guest_cmdline_u64(boot, "giant_ms", &hog_giant_ms);
    guest_cmdline_u64(boot, "inflight", &hog_inflight);
    if (strcmp(which, "seq") == 0)
        return sequence(boot);
    for (unsigned i = 0; i < sizeof attacks / sizeof attacks[0]; i++) {
        if (strcmp(which, attacks[i].name) != 0)
            continue;
        if (!vgpu_kiosk_start(&k, boot, HOG, DEFAULT_BG))
            return 1;
        if (hog_inflight >= 1 && hog_inflight <= VGPU_MAX_INFLIGHT)
            k.v.max_inflight = (unsigned)hog_inflight;
        attacks[i].run();
        return 0;
    }
    printf(HOG ": unknown attack '%s'\n", which);
    return 2;
}
