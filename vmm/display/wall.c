/* The kiosk wall: buffers, timing and the screen around vmm/display/'s composer. */
#include "vmm/display/wall.h"

#include "arch/x86/paging.h"
#include "arch/x86/timer.h"
#include "vmm/display/compose.h"
#include "vmm/log.h"
#include "vmm/platform.h"
#include "vmm/display/linux_fb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* XRGB8888, the wall's format: red in bits 23:16, green 15:8, blue 7:0 (Multiboot2 spec
 * §3.6.12 describes the framebuffer's own layout with these position/size pairs). */
#define XRGB_RED_POS   16u
#define XRGB_GREEN_POS 8u
#define XRGB_BLUE_POS  0u
#define CHANNEL_BITS   8u

#define WALL_MAX_HZ        60u
#define WALL_MAX_CPU_SHARE 10u        /* composing takes at most a tenth of the CPU */
#define WALL_HZ_OPTION     "wall.hz=" /* on the hypervisor's command line: the composition rate */

static struct {
    const struct cfg *cfg;
    wall_source_fn source;
    struct display_composer composer;
    struct display_surface surface; /* the wall in RAM */
    uint8_t *screen;                /* the boot framebuffer (identity mapped, uncached) */
    uint32_t screen_pitch;
    bool native; /* the screen is XRGB8888 too: rows copy unchanged */
    uint8_t red_pos, green_pos, blue_pos;
    uint64_t period_ns, next_ns;
    enum display_tile_result last[TESSERA_MAX_GUESTS];
    bool painted[TESSERA_MAX_GUESTS];        /* the tile has been drawn once */
    bool overlapped[TESSERA_MAX_GUESTS];     /* another tile covers part of it */
    const char *refused[TESSERA_MAX_GUESTS]; /* why the vGPU refused its surface, last logged */
    /* the frame under way (wall_poll makes it a band of a tile at a time) */
    bool in_frame;
    unsigned next_tile;
    uint32_t next_row;                 /* the tile's next band */
    bool tile_nosignal;                /* the rest of the tile draws "no signal" ... */
    enum display_tile_result tile_why; /* ... for this reason */
    uint32_t next_copy_row;            /* the screen copy's next row */
    uint64_t frame_start_ns, frame_ns; /* when it started; CPU it took so far */
    unsigned frame_pictures, frame_nosignal;
    struct wall_stats st;
} wall;

const struct wall_stats *wall_get_stats(void)
{
    return &wall.st;
}

unsigned wall_guest_count(void)
{
    return wall.cfg ? wall.cfg->n_guests : 0;
}

const char *wall_guest_name(unsigned vm)
{
    return vm < wall_guest_count() ? wall.cfg->guest[vm].name : "?";
}

static bool source_image(unsigned vm, struct display_image *img, const char **refused)
{
    struct wall_source s = { 0 };
    *refused = NULL;
    if (vm >= wall_guest_count())
        return false;
    /* The vGPU's display plane when the guest has turned it on, else (until the guest's own
     * display driver took over) a Linux guest's linear framebuffer (vmm/display/linux_fb.h). */
    bool plane = wall.source && wall.source(vm, &s) && s.enabled;
    if (!plane && (s.refused || s.owned)) {
        *refused = s.refused;
        return false;
    }
    if (!plane && !lfb_wall_source(vm, &s))
        return false;
    *img = (struct display_image){ s.width, s.height, s.stride_bytes, s.read, s.ctx };
    return true;
}

bool wall_guest_image(unsigned vm, struct display_image *img, const char **why)
{
    const char *refused;
    bool have = source_image(vm, img, &refused);
    if (why)
        *why = refused ? refused : "";
    return have;
}

/* Why the boot framebuffer cannot carry the wall, or NULL if it can. */
static const char *screen_problem(const struct boot_info *bi)
{
    const struct boot_framebuffer *fb = &bi->fb;
    if (!bi->has_framebuffer)
        return "no linear RGB framebuffer from the boot loader";
    if (fb->bpp != 32)
        return "the framebuffer is not 32 bits per pixel";
    if (fb->red_size != CHANNEL_BITS || fb->green_size != CHANNEL_BITS ||
        fb->blue_size != CHANNEL_BITS || fb->red_pos > 24 || fb->green_pos > 24 ||
        fb->blue_pos > 24)
        return "the framebuffer's colour channels are not 8 bits each";
    if (fb->pitch % 4)
        return "the framebuffer's pitch is not a whole number of pixels";
    if (paging_map_mmio(fb->addr, (uint64_t)fb->pitch * fb->height) != 0)
        return "the framebuffer cannot be mapped";
    return NULL;
}

static void copy_row_to_screen(uint32_t y)
{
    const uint32_t *src = (const uint32_t *)((const uint8_t *)wall.surface.pixels +
                                             (size_t)y * wall.surface.pitch);
    uint32_t *dst = (uint32_t *)(wall.screen + (size_t)y * wall.screen_pitch);
    uint32_t n = wall.surface.width;
    if (wall.native) {
        memcpy(dst, src, (size_t)n * 4);
        return;
    }
    for (uint32_t x = 0; x < n; x++) {
        uint32_t p = src[x];
        dst[x] = ((p >> XRGB_RED_POS) & 0xFFu) << wall.red_pos |
                 ((p >> XRGB_GREEN_POS) & 0xFFu) << wall.green_pos |
                 ((p >> XRGB_BLUE_POS) & 0xFFu) << wall.blue_pos;
    }
}

static void note_tile(unsigned vm, enum display_tile_result r, const struct display_image *img,
                      const char *refused)
{
    if (r == wall.last[vm] && (r != DISPLAY_TILE_REFUSED || refused == wall.refused[vm]))
        return;
    wall.refused[vm] = refused;
    const struct cfg_tile *t = &wall.cfg->guest[vm].tile;
    if (r == DISPLAY_TILE_PICTURE)
        log_info("display: %s: %ux%u picture on tile %u,%u %ux%u", wall.cfg->guest[vm].name,
                 img->width, img->height, t->x, t->y, t->width, t->height);
    else if (r == DISPLAY_TILE_REFUSED)
        log_warn("display: %s: no signal (bad surface: %s)", wall.cfg->guest[vm].name, refused);
    else
        log_info("display: %s: %s (%s)", wall.cfg->guest[vm].name,
                 r == DISPLAY_TILE_OUTSIDE ? "tile outside the wall" : "no signal",
                 display_tile_result_name(r));
    wall.last[vm] = r;
}

void wall_tile_restarted(unsigned vm)
{
    if (vm < TESSERA_MAX_GUESTS) {
        wall.last[vm] = DISPLAY_TILE_NO_SOURCE;
        wall.painted[vm] = false; /* it still shows the old picture: drawn again next frame */
    }
}

/* True if tile `vm` shows the no-signal pattern and nothing drawn since can have covered it. */
static bool showing_nosignal(unsigned vm)
{
    enum display_tile_result r = wall.last[vm];
    return wall.painted[vm] && !wall.overlapped[vm] && r != DISPLAY_TILE_PICTURE &&
           r != DISPLAY_TILE_OUTSIDE && r != DISPLAY_TILE_BAD_SURFACE;
}

static bool tiles_overlap(const struct cfg_tile *a, const struct cfg_tile *b)
{
    return a->x < (uint64_t)b->x + b->width && b->x < (uint64_t)a->x + a->width &&
           a->y < (uint64_t)b->y + b->height && b->y < (uint64_t)a->y + a->height;
}

/* The rate from "wall.hz=N" on the command line (0: compose only for `screenshot`), else the
 * default. */
static unsigned rate_from_cmdline(const char *cmdline)
{
    for (const char *p = cmdline; (p = strstr(p, WALL_HZ_OPTION)) != NULL; p++) {
        if (p != cmdline && p[-1] != ' ')
            continue;
        char *end;
        unsigned long hz = strtoul(p + strlen(WALL_HZ_OPTION), &end, 10);
        if (end == p + strlen(WALL_HZ_OPTION) || (*end && *end != ' ') || hz > WALL_MAX_HZ) {
            log_warn("display: ignoring '%s' on the command line: expected %s0..%u", p,
                     WALL_HZ_OPTION, WALL_MAX_HZ);
            return WALL_DEFAULT_HZ;
        }
        return (unsigned)hz;
    }
    return WALL_DEFAULT_HZ;
}

/* A band of a tile's rows per call: under an emulator a 512x384 tile took 16 ms, held the
 * hypervisor lock all that time, and every other CPU's exit waited for it.  Each band reads its
 * guest's source again, so it is checked under the lock like any access, and a guest that flips
 * while its tile is drawn may show parts of two of its frames for one wall frame.  A tile whose
 * picture goes (a read that fails, the guest stopped) part way is drawn again from its top as
 * "no signal": never half a picture and half the pattern. */
#define WALL_BAND_ROWS 32u
#define WALL_COPY_ROWS 32u /* rows copied to the screen per call (about 0.85 ms under Bochs) */

static void tile_done(unsigned vm, enum display_tile_result r, const struct display_image *img,
                      const char *refused)
{
    wall.painted[vm] = true;
    if (r == DISPLAY_TILE_PICTURE)
        wall.frame_pictures++;
    else if (r != DISPLAY_TILE_OUTSIDE && r != DISPLAY_TILE_BAD_SURFACE)
        wall.frame_nosignal++;
    note_tile(vm, r, img, refused);
}

static bool is_picture(enum display_tile_result r)
{
    return r == DISPLAY_TILE_PICTURE;
}

/* One band of tile vm; true when the tile is done. */
static bool compose_band(unsigned vm)
{
    const struct cfg_tile *t = &wall.cfg->guest[vm].tile;
    struct display_rect rect = { t->x, t->y, t->width, t->height };
    struct display_image img = { 0 };
    const char *refused;
    bool have = source_image(vm, &img, &refused) && !wall.tile_nosignal;
    if (wall.next_row == 0 && !wall.tile_nosignal && !have && showing_nosignal(vm) &&
        refused == wall.refused[vm]) {
        wall.frame_nosignal++; /* the pattern is already there: nothing to redraw */
        return true;
    }
    enum display_tile_result r = display_compose_band(&wall.composer, &wall.surface, &rect,
                                                      have ? &img : NULL, wall.next_row,
                                                      WALL_BAND_ROWS);
    if (r == DISPLAY_TILE_NO_SOURCE && refused)
        r = DISPLAY_TILE_REFUSED;
    if (r == DISPLAY_TILE_OUTSIDE || r == DISPLAY_TILE_BAD_SURFACE) {
        tile_done(vm, r, &img, refused); /* the tile's place, the same for every band */
        return true;
    }
    if (wall.tile_nosignal) {
        r = wall.tile_why;
    } else if (wall.next_row == 0) {
        wall.tile_why = r;
    } else if (is_picture(r) != is_picture(wall.tile_why)) {
        /* Picture above, pattern here, or the other way round: the pattern from the top. */
        wall.tile_why = is_picture(r) ? wall.tile_why : r;
        wall.tile_nosignal = true;
        wall.next_row = 0;
        return false;
    }
    uint32_t visible = wall.surface.height - t->y < t->height ? wall.surface.height - t->y
                                                              : t->height;
    wall.next_row += WALL_BAND_ROWS;
    if (wall.next_row < visible)
        return false;
    wall.next_row = 0;
    wall.tile_nosignal = false;
    tile_done(vm, r, &img, refused);
    return true;
}

/* The rows the frame changed go to the screen, up to `rows` of them (the uncached screen is slow
 * to write: about 26 us a row under Bochs); true when all have. */
static bool copy_dirty_rows(uint32_t rows)
{
    if (!wall.st.shown) {
        memset(wall.surface.dirty_rows, 0, wall.surface.height);
        return true;
    }
    for (; wall.next_copy_row < wall.surface.height; wall.next_copy_row++) {
        uint32_t y = wall.next_copy_row;
        if (!wall.surface.dirty_rows[y])
            continue;
        if (!rows--)
            return false;
        copy_row_to_screen(y);
        wall.surface.dirty_rows[y] = 0;
        wall.st.rows_copied++;
    }
    wall.next_copy_row = 0;
    return true;
}

/* The finished frame's counters. */
static void record_frame(void)
{
    uint64_t dt = wall.frame_ns;
    wall.st.frames++;
    wall.st.last_ns = dt;
    wall.st.total_ns += dt;
    if (dt > wall.st.max_ns)
        wall.st.max_ns = dt;
    wall.st.pictures = wall.frame_pictures;
    wall.st.nosignal = wall.frame_nosignal;
}

static void start_frame(void)
{
    wall.next_tile = 0;
    wall.next_row = 0;
    wall.tile_nosignal = false;
    wall.next_copy_row = 0;
    wall.frame_ns = 0;
    wall.frame_pictures = wall.frame_nosignal = 0;
}

/* A whole frame at once (`screenshot`): a frame under way is finished first. */
static void compose_frame(void)
{
    uint64_t t0 = timer_now_ns();
    if (!wall.in_frame)
        start_frame();
    for (; wall.next_tile < wall.cfg->n_guests; wall.next_tile++)
        while (!compose_band(wall.next_tile))
            ;
    copy_dirty_rows(UINT32_MAX);
    wall.frame_ns += timer_now_ns() - t0;
    record_frame();
    wall.in_frame = false;
}

void wall_init(const struct cfg *cfg, wall_source_fn source)
{
    memset(&wall.st, 0, sizeof wall.st);
    if (!cfg) {
        snprintf(wall.st.why, sizeof wall.st.why, "no valid configuration");
        log_warn("display: %s: no kiosk wall", wall.st.why);
        return;
    }
    wall.cfg = cfg;
    wall.source = source;
    wall.st.tiles = cfg->n_guests;
    wall.st.hz = rate_from_cmdline(platform.boot.cmdline);
    for (unsigned i = 0; i < TESSERA_MAX_GUESTS; i++) {
        wall.last[i] = DISPLAY_TILE_NO_SOURCE; /* what a tile starts as; only changes are logged */
        wall.painted[i] = wall.overlapped[i] = false;
        wall.refused[i] = NULL;
    }
    for (unsigned i = 0; i < cfg->n_guests; i++)
        for (unsigned j = 0; j < cfg->n_guests; j++)
            if (i != j && tiles_overlap(&cfg->guest[i].tile, &cfg->guest[j].tile))
                wall.overlapped[i] = true;

    const struct boot_framebuffer *fb = &platform.boot.fb;
    const char *problem = screen_problem(&platform.boot);
    uint32_t w = cfg->display.width_px, h = cfg->display.height_px;
    if (!problem) {
        if (w > fb->width || h > fb->height)
            log_warn(
                "display: the %ux%u wall is larger than the %ux%u framebuffer: it is cut to fit", w,
                h, fb->width, fb->height);
        w = w < fb->width ? w : fb->width;
        h = h < fb->height ? h : fb->height;
    }

    uint64_t bytes = (uint64_t)w * h * DISPLAY_BYTES_PER_PIXEL;
    uint64_t pages = (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
    uint64_t buf = page_alloc(&platform.pages, pages, 1);
    uint8_t *dirty = malloc(h);
    if (!buf || !dirty) {
        if (buf)
            page_free(&platform.pages, buf, pages);
        free(dirty);
        snprintf(wall.st.why, sizeof wall.st.why, "no memory for the %ux%u wall buffer (%llu KiB)",
                 w, h, (unsigned long long)(bytes >> 10));
        log_error("display: %s", wall.st.why);
        return;
    }
    memset((void *)(uintptr_t)buf, 0, bytes);
    memset(dirty, 0, h);
    wall.surface = (struct display_surface){ (uint32_t *)(uintptr_t)buf, w, h,
                                             w * DISPLAY_BYTES_PER_PIXEL, dirty };
    wall.st.width = w;
    wall.st.height = h;
    wall.st.ready = true;
    wall.period_ns = wall.st.hz ? 1000000000ull / wall.st.hz : 0;

    if (problem) {
        snprintf(wall.st.why, sizeof wall.st.why, "%s", problem);
        log_warn("display: %s: the wall is not shown (`screenshot` still composes it)", problem);
        return;
    }
    wall.screen = (uint8_t *)(uintptr_t)fb->addr;
    wall.screen_pitch = fb->pitch;
    wall.red_pos = fb->red_pos;
    wall.green_pos = fb->green_pos;
    wall.blue_pos = fb->blue_pos;
    wall.native = fb->red_pos == XRGB_RED_POS && fb->green_pos == XRGB_GREEN_POS &&
                  fb->blue_pos == XRGB_BLUE_POS;
    /* The wall buffer starts black; so does the screen (what the loader left there goes). */
    for (uint32_t y = 0; y < fb->height; y++)
        memset(wall.screen + (size_t)y * fb->pitch, 0, (size_t)fb->width * 4);
    wall.st.shown = true;
    log_info(
        "display: %ux%u wall of %u tiles on the %ux%u framebuffer at %#llx (%s), composed at %u Hz",
        w, h, cfg->n_guests, fb->width, fb->height, (unsigned long long)fb->addr,
        wall.native ? "XRGB8888" : "converted to its channel order", wall.st.hz);
}

/* A frame is made one band of a tile per call (and the screen copy in a few more), so the guests
 * run between its steps: under an emulator a whole frame costs tens of ms, longer than a guest display's
 * frame period, and composing it at once would make a guest miss vblanks it waits for. */
bool wall_poll(uint64_t now_ns)
{
    if (!wall.st.shown || !wall.period_ns || (!wall.in_frame && now_ns < wall.next_ns))
        return false;
    if (!wall.in_frame) {
        start_frame();
        wall.in_frame = true;
        wall.frame_start_ns = now_ns;
    }
    uint64_t t0 = timer_now_ns();
    if (wall.next_tile < wall.cfg->n_guests) {
        if (compose_band(wall.next_tile))
            wall.next_tile++;
        wall.frame_ns += timer_now_ns() - t0;
        return true;
    }
    if (!copy_dirty_rows(WALL_COPY_ROWS)) {
        wall.frame_ns += timer_now_ns() - t0;
        return true;
    }
    uint64_t done = timer_now_ns();
    wall.frame_ns += done - t0;
    record_frame();
    wall.in_frame = false;
    /* Keep the cadence steady, but never try to catch up on frames missed while busy, and never
     * spend more than 1/WALL_MAX_CPU_SHARE of the CPU composing (under an emulator a frame can
     * cost tens of ms, which at 10 Hz would starve the guests and the GPU model). */
    uint64_t start = wall.frame_start_ns;
    uint64_t next = wall.next_ns + wall.period_ns > start ? wall.next_ns + wall.period_ns
                                                          : start + wall.period_ns;
    uint64_t floor = done + wall.frame_ns * (WALL_MAX_CPU_SHARE - 1);
    wall.next_ns = next > floor ? next : floor;
    return false;
}

bool wall_compose_now(void)
{
    if (!wall.st.ready)
        return false;
    compose_frame();
    return true;
}

bool wall_image(struct display_image *img, struct display_mem *mem)
{
    if (!wall.st.ready)
        return false;
    display_image_from_memory(img, mem, wall.surface.pixels, wall.surface.width,
                              wall.surface.height, wall.surface.pitch);
    return true;
}

void wall_describe(char *buf, size_t len)
{
    const struct wall_stats *s = &wall.st;
    if (!s->ready) {
        snprintf(buf, len, "wall: none (%s)", s->why[0] ? s->why : "not set up");
        return;
    }
    uint64_t mean = s->frames ? s->total_ns / s->frames : 0;
    char where[160];
    if (s->shown)
        snprintf(where, sizeof where,
                 s->hz ? "on the boot framebuffer at %u Hz"
                       : "on the boot framebuffer, on demand only",
                 s->hz);
    else
        snprintf(where, sizeof where, "not shown: %s", s->why);
    snprintf(
        buf, len,
        "wall: %ux%u %s; %u tiles (last frame: %u with a picture, %u no signal); %llu frames, "
        "compose last %llu.%03llu ms, mean %llu.%03llu ms, max %llu.%03llu ms; %llu rows to the screen",
        s->width, s->height, where, s->tiles, s->pictures, s->nosignal,
        (unsigned long long)s->frames, (unsigned long long)(s->last_ns / 1000000),
        (unsigned long long)(s->last_ns / 1000 % 1000), (unsigned long long)(mean / 1000000),
        (unsigned long long)(mean / 1000 % 1000), (unsigned long long)(s->max_ns / 1000000),
        (unsigned long long)(s->max_ns / 1000 % 1000), (unsigned long long)s->rows_copied);
}
