/* heavy: a tile that keeps the GPU busy.  Every workload fills a large scratch surface in high
 * graphics memory, copies it to a second one and copies that onto the framebuffer; up to
 * VGPU_MAX_INFLIGHT workloads are kept in flight.  It wants more graphics memory over time:
 * every few seconds it asks the balloon for one more slot, until refused or max-slots.  When
 * its ranges change (its own growth, or the operator's `balloon <vm> -N`), it waits for its
 * work, puts the scratch surfaces somewhere inside the new ranges and carries on; every fifth
 * status period it lets the GPU go idle and checks on the CPU that the surfaces hold what the
 * GPU was told to draw.
 *
 *   heavy: vgpu ready tile WxH low 0x...+0x... high 0x...+0x...
 *   heavy: scratch 2 x WxH at 0x... 0x...
 *   heavy: frames <n> +<d> in <t> ms inflight <i> waits <w> failures <k> slots <s>   ~2 s
 *   heavy: balloon +1 granted, slots <n>    /   heavy: balloon +1 refused
 *   heavy: ranges changed (generation <g>) high 0x...+0x..., scratch re-placed at 0x... 0x...
 *   heavy: check FAILED at <surface> (<x>,<y>): 0x... want 0x...
 *
 * Command line: max-slots=N (stop asking at N slots; default: until refused), balloon_ms=N
 * (default 3000), bg=0xRRGGBB (default 0x600000), scratch_w=N scratch_h=N (default 1024x512),
 * inflight=N (workloads kept in flight, 1..8, default 8). */
#include "guests/lib/guest.h"
#include "guests/lib/vgpu.h"

#include "drivers/igpu/gen9_cmd.h"

#include <inttypes.h>
#include <stdio.h>

#define NAME               "heavy"
#define DEFAULT_BG         0x600000u
#define DEFAULT_BALLOON_MS 3000u
#define DEFAULT_SCRATCH_W  1024u
#define DEFAULT_SCRATCH_H  512u
#define STATUS_US          (2u * 1000u * 1000u)
#define CHECK_EVERY        5u
#define BALLOON_ANSWER_US  (5u * 1000u * 1000u)
#define CMDS               (GEN9_XY_COLOR_BLT_LEN + 2u * GEN9_XY_SRC_COPY_BLT_LEN)

static struct vgpu_kiosk k;
static struct vgpu_surface s1, s2;
static bool placed;
static uint64_t submitted_frames, submit_failures, check_failures, status_count;

static uint32_t frame_color(uint64_t n)
{
    /* The background's hue, brightness stepping with the frame. */
    uint32_t step = (uint32_t)(n % 8u) * 0x10u;
    return (k.bg | (step << 8) | step) & 0xFFFFFFu;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

static uint32_t submit_frame(uint64_t n)
{
    uint32_t dw[CMDS];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, dw, CMDS);
    uint32_t w = min_u32(s2.width, k.fb.width), h = min_u32(s2.height, k.fb.height);
    vgpu_emit_color_blt(&cb, s1.bo.gm, s1.pitch, 0, 0, s1.width, s1.height, frame_color(n));
    vgpu_emit_copy_blt(&cb, s2.bo.gm, s2.pitch, 0, 0, s1.bo.gm, s1.pitch, 0, 0, s1.width,
                       s1.height);
    vgpu_emit_copy_blt(&cb, k.fb.bo.gm, k.fb.pitch, 0, 0, s2.bo.gm, s2.pitch, 0, 0, w, h);
    return vgpu_submit(&k.v, dw, cb.n);
}

static bool check_pixel(const char *what, const struct vgpu_surface *s, uint32_t x, uint32_t y,
                        uint32_t want)
{
    uint32_t got = ((const uint32_t *)vgpu_bo_cpu(&s->bo))[y * (s->pitch / 4u) + x] & 0xFFFFFFu;
    if (got == want)
        return true;
    printf(NAME ": check FAILED at %s (%" PRIu32 ",%" PRIu32 "): 0x%06" PRIx32 " want 0x%06" PRIx32
                "\n",
           what, x, y, got, want);
    check_failures++;
    return false;
}

/* After everything in flight retired: the last frame that ran must be in all three surfaces. */
static void check(uint64_t last_ok_frame)
{
    uint32_t want = frame_color(last_ok_frame);
    if (check_pixel("scratch1", &s1, s1.width - 1, s1.height - 1, want) &&
        check_pixel("scratch2", &s2, s2.width / 2, s2.height / 2, want))
        check_pixel("framebuffer", &k.fb, 0, 0, want);
}

static bool place_scratch(bool first)
{
    bool ok = first ? vgpu_surface_alloc(&k.v, &s1, s1.width, s1.height, VGPU_GM_HIGH) &&
                          vgpu_surface_alloc(&k.v, &s2, s2.width, s2.height, VGPU_GM_HIGH)
                    : vgpu_bo_replace(&k.v, &s1.bo) && vgpu_bo_replace(&k.v, &s2.bo);
    placed = ok;
    return ok;
}

int guest_main(const struct tessera_boot_info *boot)
{
    uint64_t max_slots = UINT32_MAX, balloon_ms = DEFAULT_BALLOON_MS;
    uint64_t sw = DEFAULT_SCRATCH_W, sh = DEFAULT_SCRATCH_H;
    guest_cmdline_u64(boot, "max-slots", &max_slots);
    guest_cmdline_u64(boot, "balloon_ms", &balloon_ms);
    guest_cmdline_u64(boot, "scratch_w", &sw);
    guest_cmdline_u64(boot, "scratch_h", &sh);
    if (!vgpu_kiosk_start(&k, boot, NAME, DEFAULT_BG))
        return 1;
    uint64_t inflight;
    if (guest_cmdline_u64(boot, "inflight", &inflight) && inflight >= 1 &&
        inflight <= VGPU_MAX_INFLIGHT)
        k.v.max_inflight = (unsigned)inflight;
    if (k.v.high_size == 0) {
        printf(NAME ": no high graphics memory to work in\n");
        return 1;
    }
    s1.width = s2.width = (uint32_t)sw;
    s1.height = s2.height = (uint32_t)sh;
    if (!place_scratch(true))
        return 1;
    printf(NAME ": scratch 2 x %" PRIu32 "x%" PRIu32 " at 0x%" PRIx64 " 0x%" PRIx64 "\n", s1.width,
           s1.height, s1.bo.gm, s2.bo.gm);
    if (!vgpu_moves_enable(&k.v))
        return 1;

    bool growing = true;
    uint64_t now = guest_now_us(), last_status = now, next_status = now + STATUS_US;
    uint64_t next_balloon = now + balloon_ms * 1000u, last_completed = 0;
    uint32_t seqno_of_frame[VGPU_OUTCOMES] = { 0 };
    for (;;) {
        vgpu_kiosk_follow(&k); /* before any frame's addresses are taken */
        if (vgpu_refresh_ranges(&k.v, false)) {
            /* Work on memory that went away is dropped (counted as rejected). */
            vgpu_wait_idle(&k.v, VGPU_WAIT_DEFAULT_US);
            if (place_scratch(false))
                printf(NAME ": ranges changed (generation %" PRIu32 ") high 0x%" PRIx64
                            "+0x%" PRIx64 ", scratch re-placed at 0x%" PRIx64 " 0x%" PRIx64 "\n",
                       k.v.generation, k.v.high_base, k.v.high_size, s1.bo.gm, s2.bo.gm);
            else
                printf(NAME ": ranges changed (generation %" PRIu32 ") high 0x%" PRIx64
                            "+0x%" PRIx64 ": no room for the scratch surfaces, waiting\n",
                       k.v.generation, k.v.high_base, k.v.high_size);
        }
        if (placed && vgpu_poll(&k.v) >= k.v.max_inflight) {
            guest_sleep_us(1000u); /* all in flight: yield, keep the status on time */
        } else if (placed) {
            uint64_t n = submitted_frames++;
            uint32_t seqno = submit_frame(n);
            if (!seqno)
                submit_failures++;
            seqno_of_frame[n % VGPU_OUTCOMES] = seqno;
        } else {
            guest_sleep_us(100000u); /* until the ranges change or room appears */
            place_scratch(false);
        }

        now = guest_now_us();
        if (now >= next_status) {
            /* The CPU check needs the GPU idle: every CHECK_EVERY status periods. */
            if (placed && submitted_frames && ++status_count % CHECK_EVERY == 0) {
                vgpu_wait_idle(&k.v, VGPU_WAIT_DEFAULT_US);
                uint64_t last = submitted_frames - 1;
                struct vgpu_outcome o;
                if (vgpu_wait(&k.v, seqno_of_frame[last % VGPU_OUTCOMES], 0, &o) == VGPU_OK)
                    check(last);
            }
            uint64_t done = k.v.stats.completed;
            uint64_t failures = k.v.stats.rejected + k.v.stats.resets + k.v.stats.timeouts +
                                submit_failures + check_failures;
            now = guest_now_us();
            printf(NAME ": frames %" PRIu64 " +%" PRIu64 " in %" PRIu64
                        " ms inflight %u waits %" PRIu64 " failures %" PRIu64 " slots %" PRIu32
                        "\n",
                   done, done - last_completed, (now - last_status) / 1000u, k.v.n_inflight,
                   k.v.stats.waits, failures, k.v.slots);
            last_completed = done;
            last_status = now;
            next_status = now + STATUS_US;
        }
        if (growing && now >= next_balloon) {
            next_balloon = now + balloon_ms * 1000u;
            if (k.v.slots >= max_slots) {
                growing = false;
                continue;
            }
            enum vgpu_balloon_answer a = vgpu_balloon_request(&k.v, 1, BALLOON_ANSWER_US);
            k.v.slots = vgpu_ext_read(&k.v, offsetof(struct tessera_balloon_if, slots));
            if (a == VGPU_BALLOON_GRANTED) {
                printf(NAME ": balloon +1 granted, slots %" PRIu32 "\n", k.v.slots);
            } else if (a == VGPU_BALLOON_REFUSED) {
                printf(NAME ": balloon +1 refused, slots %" PRIu32 "\n", k.v.slots);
                growing = false;
            } else {
                printf(NAME ": balloon +1 not answered in %u ms\n", BALLOON_ANSWER_US / 1000u);
            }
        }
    }
}
