/* The vendor configuration: what a checked configuration holds, and the one checker that turns a
 * device-tree blob into it.
 *
 * The same code runs in the host tool (tools/tessera-config, so `make` rejects a bad
 * configuration before an image exists) and in the hypervisor (which re-checks the blob it boots
 * with).  The property reference, limits and defaults are in docs/config.md; the limits below are
 * the policy that document describes, named once here.
 *
 * A parsed `struct cfg` holds copies of everything (fixed-size strings, no pointers into the
 * blob), so the blob may be freed or overwritten after parsing. */
#ifndef CONFIG_CONFIG_H
#define CONFIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gtt/layout.h"
#include "tessera/limits.h" /* TESSERA_MAX_GUESTS */

/* The root node's `compatible`: bump the number when a change is not backwards compatible. */
#define CFG_COMPATIBLE "tessera,config-1"

/* A guest whose `image` is this tag would be handed the configuration blob itself: GRUB's
 * module2 tag for the configuration override (docs/config.md). */
#define CFG_RESERVED_IMAGE_TAG "tessera-config"

/* String sizes, including the terminating NUL. */
#define CFG_NAME_MAX    16u   /* guest name: the node name under /guests */
#define CFG_IMAGE_MAX   32u   /* image tag as given to GRUB's module2 */
#define CFG_CMDLINE_MAX 1024u /* guest command line (a Linux one is long) */
#define CFG_MODEL_MAX   32u   /* appliance model, free text for the log */

/* Limits (policy; docs/config.md explains each). */
#define CFG_GUEST_RAM_MIN_MIB 4u /* page tables, boot info, a small unikernel */
/* A Linux guest's floor, before the kernel is looked at: Debian's 6.1 kernel alone needs
 * 80 MiB to boot (loaded at 16 MiB, init_size 63.6 MiB), then room to run its initramfs. */
#define CFG_LINUX_RAM_MIN_MIB     128u
#define CFG_GUEST_RAM_MAX_MIB     16384u
#define CFG_LOW_GM_MIN_MIB        1u /* every guest has a vGPU: it needs CPU-visible GM */
#define CFG_LOW_GM_MAX_MIB        4096u
#define CFG_HIGH_GM_MAX_MIB       4096u
#define CFG_SLOT_MIB              (GTT_DEFAULT_SLOT_BYTES / GTT_MIB) /* high GM granularity */
#define CFG_WEIGHT_MIN            1u
#define CFG_WEIGHT_MAX            1000u
#define CFG_TILE_MIN_PX           16u
#define CFG_WALL_MIN_PX           64u
#define CFG_WALL_MAX_PX           8192u
#define CFG_SLICE_MIN_US          100u
#define CFG_SLICE_MAX_US          100000u
#define CFG_WORKLOAD_LIMIT_MAX_US 10000000u                                  /* 10 s */
#define CFG_FENCE_POOL_KIB        (unsigned)(GTT_DEFAULT_FENCE_POOL / 1024u) /* the pool */
#define CFG_FENCE_SHARE_UNIT_KIB  4u /* a share is whole 4 KiB pages */
#define CFG_PERIOD_MIN_MS         100u
#define CFG_PERIOD_MAX_MS         10000u
#define CFG_THRESHOLD_MIN_PCT     1u
#define CFG_THRESHOLD_MAX_PCT     100u
#define CFG_APPLIANCE_RAM_MIN_MIB 16u
#define CFG_APPLIANCE_RAM_MAX_MIB (1024u * 1024u) /* 1 TiB */
#define CFG_RESERVED_MIN_MIB      8u
#define CFG_APERTURE_MIN_MIB      64u
#define CFG_APERTURE_MAX_MIB      4096u
#define CFG_MAX_SHARE_MAX         TESSERA_MAX_GUESTS
#define CFG_CPU_INDEX_MAX         63u /* CPUs are numbered as the shell's `cpus` lists them */
#define CFG_VCPUS_MAX             8u  /* vCPUs of one (Linux) guest */

/* Defaults for optional properties. */
#define CFG_DEFAULT_RESERVED_MIB      64u
#define CFG_DEFAULT_APERTURE_MIB      (unsigned)(GTT_DEFAULT_APERTURE / GTT_MIB)
#define CFG_DEFAULT_SLICE_US          6000u   /* FairGV's 6 ms slice */
#define CFG_DEFAULT_RR_SLICE_US       16000u  /* GVT-g's 16 ms round-robin quantum */
#define CFG_DEFAULT_WORKLOAD_LIMIT_US 200000u /* the watchdog's 200 ms */
#define CFG_DEFAULT_PERIOD_MS         500u    /* gBalloon's 0.5 s control period */
#define CFG_DEFAULT_LOW_PCT           25u     /* gBalloon: 0.5 of f's maximum 2 */
#define CFG_DEFAULT_HIGH_PCT          50u     /* gBalloon: 1.0 of f's maximum 2 */
#define CFG_DEFAULT_MIN_SLOTS         1u

enum cfg_sched_policy {
    CFG_SCHED_FAIR = 0,   /* weighted fair queuing (FairGV) */
    CFG_SCHED_RR = 1,     /* round-robin (GVT-g) */
    CFG_SCHED_CREDIT = 2, /* credit scheduler */
    CFG_SCHED_LAS = 3,    /* least attained service (Rain) */
};

enum cfg_gm_sharing {
    CFG_GM_SHARE_ALL = 0,  /* low and high GM may be shared (ladder mapping) */
    CFG_GM_SHARE_HIGH = 1, /* only high-GM slots are shared */
    CFG_GM_SHARE_NONE = 2, /* static partition */
};

/* A rectangle on the kiosk wall, in pixels, origin top left. */
struct cfg_tile {
    uint32_t x, y, width, height;
};

/* What a guest boots: a Tessera guest (an ELF64 image following docs/guest-abi.md) or an
 * unmodified Linux kernel (a bzImage, booted by the 64-bit boot protocol). */
enum cfg_guest_kind {
    CFG_GUEST_TESSERA = 0,
    CFG_GUEST_LINUX = 1,
};

/* The vGPU a guest's driver finds (property `vgpu`): Tessera's own contract (docs/vgpu-abi.md),
 * or the one an unmodified Linux i915 needs (docs/vgpu-i915.md: full PPGTT and status-page
 * emulation advertised, four engines, MSI). */
enum cfg_vgpu_profile {
    CFG_VGPU_TESSERA = 0,
    CFG_VGPU_I915 = 1,
};

/* The display an i915 vGPU offers its guest (property `vgpu-display`): none (every pipe fused
 * off), or one virtual DisplayPort monitor (docs/vgpu-i915.md "Display"). */
enum cfg_vgpu_display {
    CFG_DISPLAY_NONE = 0,
    CFG_DISPLAY_DP = 1,
};
#define CFG_DISPLAY_DEFAULT_HZ 60u

/* A guest's vCPUs and the CPU each runs on (property `cpus`, one cell per vCPU, each CPU named
 * once); folded at boot onto the CPUs the appliance has.  Without the property: one vCPU, on the
 * boot CPU. */
struct cfg_cpus {
    uint32_t n;                  /* vCPUs, 1..CFG_VCPUS_MAX (more than one: Linux guests only) */
    uint32_t cpu[CFG_VCPUS_MAX]; /* the CPU vCPU i runs on */
};

struct cfg_guest {
    char name[CFG_NAME_MAX];       /* the node name under /guests; the shell's <vm> */
    uint32_t kind;                 /* enum cfg_guest_kind; property `kernel` */
    char image[CFG_IMAGE_MAX];     /* GRUB module2 tag of the guest's ELF image or bzImage */
    char initrd[CFG_IMAGE_MAX];    /* Linux: module2 tag of the initramfs, "" if none */
    char cmdline[CFG_CMDLINE_MAX]; /* "" if none */
    uint32_t fb_width_px;          /* Linux: its linear framebuffer, default the tile's size */
    uint32_t fb_height_px;
    uint32_t ram_mib;
    uint32_t low_gm_mib;     /* CPU-visible graphics memory (aperture) */
    uint32_t high_gm_mib;    /* GPU-only graphics memory, whole slots */
    uint32_t weight;         /* render-scheduler weight */
    uint32_t fence_pool_kib; /* its share of the fence pool; 0 = not given (the fair
                                     * split of what the others leave) */
    struct cfg_tile tile;
    bool console;              /* the guest's virtual UART is kept (shell `console`) */
    bool autostart;            /* started at boot, else by `vm start` */
    uint32_t vgpu;             /* enum cfg_vgpu_profile; Linux guests only for i915 */
    uint32_t vgpu_display;     /* enum cfg_vgpu_display; i915 vGPUs only */
    uint32_t display_width_px; /* the monitor's preferred mode, default the tile's size */
    uint32_t display_height_px;
    uint32_t display_hz;  /* its refresh, default CFG_DISPLAY_DEFAULT_HZ */
    struct cfg_cpus cpus; /* property `cpus`: where its vCPUs run */
};

struct cfg_appliance {
    char model[CFG_MODEL_MAX]; /* "" if none */
    uint32_t ram_mib;          /* RAM the appliance has */
    uint32_t reserved_mib;     /* kept by the hypervisor; guests share the rest */
    uint32_t aperture_mib;     /* iGPU aperture (BAR2) size the layout assumes */
};

struct cfg_graphics {
    uint32_t sharing;   /* enum cfg_gm_sharing */
    uint32_t max_share; /* most guests on one GM page; 0 = no limit */
};

struct cfg_scheduler {
    uint32_t policy; /* enum cfg_sched_policy */
    uint32_t slice_us;
    uint32_t workload_limit_us; /* longest GPU time one workload may run (the watchdog) */
    uint32_t render_cpu;        /* the CPU the render loop runs on, numbered as `cpus` */
};

struct cfg_balloon {
    bool enabled;
    uint32_t period_ms;
    uint32_t low_threshold_pct; /* of f(W, R_copy)'s maximum (2.0) */
    uint32_t high_threshold_pct;
    uint32_t min_slots; /* per guest */
    uint32_t max_slots; /* per guest; default: every slot of high GM */
};

struct cfg_display {
    uint32_t width_px, height_px; /* the kiosk wall */
};

struct cfg {
    struct cfg_appliance appliance;
    struct cfg_graphics graphics;
    struct cfg_scheduler scheduler;
    struct cfg_balloon balloon;
    struct cfg_display display;
    unsigned n_guests;
    struct cfg_guest guest[TESSERA_MAX_GUESTS]; /* index = guest id, source order */
    uint32_t n_slots;                           /* high-GM slots of the checked layout */
    uint32_t dtb_bytes; /* the checked DTB: size and CRC-32, to identify it */
    uint32_t dtb_crc32;
};

/* Return codes. */
#define CFG_OK       0
#define CFG_EBLOB    (-1) /* the wrapper or the DTB itself is malformed or corrupt */
#define CFG_EINVALID (-2) /* a well-formed DTB that the semantic checks reject */
#define CFG_ENOMEM   (-3) /* the checker could not allocate its work memory */

/* Checks a DTB (len bytes at dtb, any alignment) and fills *out.  On error returns CFG_E*, and
 * writes one line into err (if errlen > 0) naming the node and property and what was expected,
 * e.g. "/guests/kiosk2: weight: expected 1..1000 (render weight), got 0".  *out is only
 * meaningful after CFG_OK. */
int cfg_check_dtb(const void *dtb, size_t len, struct cfg *out, char *err, size_t errlen);

/* The graphics-memory layout request the checker verified, for the hypervisor to compute the
 * same layout at boot: fills *p (gtt_layout_defaults plus the appliance's aperture and the
 * sharing policy) and req[0..n_guests-1]; p->req points at req. */
/* Each guest's share of the fence pool in bytes: its fence-pool-kib, or an equal part (whole
 * pages) of what the guests with one leave. */
void cfg_fence_shares(const struct cfg *c, uint64_t shares[TESSERA_MAX_GUESTS]);
void cfg_gtt_params(const struct cfg *c, struct gtt_layout_params *p,
                    struct gtt_guest_request req[TESSERA_MAX_GUESTS]);

/* Names for the enums ("fair", "all", "linux", ...); "?" for values out of range. */
const char *cfg_sched_policy_name(uint32_t policy);
const char *cfg_guest_kind_name(uint32_t kind);
const char *cfg_gm_sharing_name(uint32_t sharing);

/* One line describing guest `id` (no newline), e.g.
 *   "guest 0 kiosk0: image hello, RAM 32 MiB, GM 64+384 MiB, weight 100, tile 0,0 512x384,
 *    console on, autostart"
 * Returns what snprintf returns (the full length; truncated to len - 1 if longer). */
int cfg_guest_summary(const struct cfg *c, unsigned id, char *buf, size_t len);

/* Renders the whole configuration as readable lines (no newlines), one call of line() each:
 * a header naming `source` (e.g. "built-in" or "module"; NULL leaves it out), the appliance,
 * graphics, display, scheduler and balloon settings, then one line per guest. */
typedef void (*cfg_line_fn)(void *ctx, const char *line);
void cfg_format(const struct cfg *c, const char *source, cfg_line_fn line, void *ctx);

#endif
