/* The kiosk wall (docs/display.md): every guest's framebuffer, scaled onto its tile, composed at
 * a steady rate onto the boot framebuffer GRUB handed over.  The pixel work is the pure
 * vmm/display/ module; this file owns the buffers, the timing and the screen.
 *
 * The wall is composed into a buffer in RAM first and only rows that changed are copied to the
 * screen (the framebuffer is uncached device memory: every store there is expensive, and
 * reading it back is worse).  The same buffer is what `screenshot` writes.  Without a usable
 * framebuffer the wall is not shown, but `screenshot` still composes it on demand. */
#ifndef TESSERA_VMM_WALL_H
#define TESSERA_VMM_WALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "vmm/display/image.h"

#define WALL_DEFAULT_HZ \
    10u /* compositions per second; "wall.hz=N" on the hypervisor's
                                         * command line sets 0..60 (0: only for `screenshot`) */

/* One guest's picture, as the vGPU knows it from the guest's display-plane registers. */
struct wall_source {
    bool enabled; /* the plane is on */
    /* With enabled false: why the vGPU refused the surface the guest named (the tile shows
     * "no signal", logged as a bad surface), and whether the guest's own display driver owns
     * the display (then a Linux guest's firmware framebuffer, stale since, is not shown). */
    const char *refused;
    bool owned;
    uint32_t width, height, stride_bytes;
    /* Reads bytes of the framebuffer (offset from its first pixel) through the guest's GGTT;
     * false if any of them is not there. */
    bool (*read)(void *ctx, uint64_t off, void *buf, size_t len);
    void *ctx;
};

/* Fills *out for guest `vm`; false: no picture for that guest (it shows "no signal"). */
typedef bool (*wall_source_fn)(unsigned vm, struct wall_source *out);

/* Sets the wall up from the configuration's display and tiles and platform.boot.fb; logs what
 * it does or why the wall is not shown.  `source` may be NULL (every tile: no signal). */
void wall_init(const struct cfg *cfg, wall_source_fn source);

/* Composes a frame and updates the screen when one is due (at the wall's rate), a step of it
 * per call; cheap otherwise.  Call it from the main loop.  True while a frame is under way: its
 * next step is due at once, so the loop should not idle until its next tick.  A tile without a
 * picture that already shows "no signal" is not redrawn; every tile with a picture is re-read
 * each frame (a guest may draw with the CPU, which the hypervisor does not see). */
bool wall_poll(uint64_t now_ns);

/* Guest `vm` restarted: its tile is as at boot, so the first picture of its new life is logged
 * even if no frame was composed between its old picture and that one. */
void wall_tile_restarted(unsigned vm);

struct wall_stats {
    bool ready;             /* wall_init set up a wall buffer */
    bool shown;             /* ... and composes it onto the boot framebuffer */
    uint32_t width, height; /* the wall as composed */
    unsigned hz;
    unsigned tiles, pictures, nosignal; /* the last frame's tiles: with a picture / no signal */
    uint64_t frames;                    /* compositions, periodic and on demand */
    uint64_t last_ns, max_ns, total_ns; /* time per composition (including the screen copy) */
    uint64_t rows_copied;               /* rows copied to the screen, all frames */
    char why[128];                      /* why the wall is not shown (or not ready) */
};
const struct wall_stats *wall_get_stats(void);
/* One line (no newline) describing the wall and its counters, for the shell. */
void wall_describe(char *buf, size_t len);

/* Composes a frame now (and shows it).  False if there is no wall. */
bool wall_compose_now(void);
/* The composed wall, readable through img (mem holds the read context); false if none. */
bool wall_image(struct display_image *img, struct display_mem *mem);

/* The configured guests, for the shell: count, name, and a guest's own picture (its
 * framebuffer at its own size); false when it has none (*why, if asked, says why: "" or the
 * vGPU's reason for refusing the surface). */
unsigned wall_guest_count(void);
const char *wall_guest_name(unsigned vm);
bool wall_guest_image(unsigned vm, struct display_image *img, const char **why);

#endif
