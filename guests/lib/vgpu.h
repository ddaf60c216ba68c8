/* The guest's vGPU driver: a small i915-like driver for Tessera's mediated Gen9 GPU, coded
 * against the contract in docs/vgpu-abi.md.  One `struct vgpu` per guest:
 *
 *   vgpu_init()        finds 00:02.0 on PCI, maps BAR0, checks the PV info page (vGT 1.0 and
 *                      Tessera's "TBLN" extension), reads avail_rs and the tile size, wakes the
 *                      GT, selects execlists on the blitter and builds the context, the ring,
 *                      the status page and the breadcrumb page.
 *   vgpu_bo_*          buffers: pages of the guest's own RAM (the DMA pool, the top of RAM
 *                      kept away from malloc) mapped by GGTT writes at a graphics address inside
 *                      the guest's low (aperture) or high range.  The CPU reaches a buffer at
 *                      its guest-physical address (the boot page tables identity-map RAM).
 *   vgpu_emit_*        command builders (vgpu_cmd.h) for what the blitter scanner accepts.
 *   vgpu_submit()      appends commands and a breadcrumb to the ring, writes ELSP; up to
 *                      VGPU_MAX_INFLIGHT workloads in flight.  vgpu_wait() polls the breadcrumb
 *                      and the context's RING_HEAD, halting (yielding) in between, and says
 *                      whether the work ran, was rejected (and why) or was dropped by a reset.
 *   vgpu_display_*     the primary plane (the framebuffer the hypervisor puts on the tile).
 *   vgpu_balloon_*     Tessera's balloon: ask for more or fewer high-GM slots, follow
 *                      `generation` changes of avail_rs.
 *   vgpu_moves_*       Tessera's re-placement: the hypervisor may move the guest's ranges
 *                      (their GGTT entries with them) so busy guests stop sharing graphics
 *                      memory; the library follows, adding the distance to every buffer.
 *
 * Nothing here pretends: every step that the vGPU does not answer as the contract says prints
 * one line starting with the guest's name and fails. */
#ifndef TESSERA_GUESTS_LIB_VGPU_H
#define TESSERA_GUESTS_LIB_VGPU_H

#include "guests/lib/guest.h"
#include "guests/lib/vgpu_cmd.h"
#include "tessera/abi/vgpu.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VGPU_PAGE         4096u
#define VGPU_RING_SIZE    (16u * 1024u) /* the blitter ring: 4 KiB multiple */
#define VGPU_MAX_INFLIGHT 8u            /* workloads submitted and not yet retired */
#define VGPU_SUBMIT_MAX_DW \
    512u                         /* commands in one submission (the vGPU takes
                                                 * at most 4 KiB of ring per submission, and
                                                 * the wrap padding can double a workload) */
#define VGPU_BC_SLOTS        64u /* breadcrumb slots (64 bytes each) per page */
#define VGPU_OUTCOMES        64u /* remembered outcomes, by seqno */
#define VGPU_ALLOC_MAX       48u /* allocations per range allocator */
#define VGPU_BO_MAX          48u /* buffers the library keeps track of */
#define VGPU_WAIT_DEFAULT_US (5u * 1000u * 1000u)
/* A wait whose GPU is busy (its work waits behind other guests', or ran meanwhile) goes on past
 * its timeout up to this long in all (vgpu_wait). */
#define VGPU_WAIT_BUSY_MAX_US (60u * 1000u * 1000u)

/* ---- Range allocator: first fit over [base, base + size), page granular ---- */

struct vgpu_extent {
    uint64_t start, size;
};

struct vgpu_alloc {
    uint64_t base, size;
    unsigned n; /* used extents, sorted by start */
    struct vgpu_extent used[VGPU_ALLOC_MAX];
};

void vgpu_alloc_init(struct vgpu_alloc *a, uint64_t base, uint64_t size);
/* Finds a free extent of `size` bytes (rounded up to pages) aligned to `align` (a power of
 * two, at least a page), marks it used and stores its start in *out.  False if none is left. */
bool vgpu_alloc_get(struct vgpu_alloc *a, uint64_t size, uint64_t align, uint64_t *out);
bool vgpu_alloc_put(struct vgpu_alloc *a, uint64_t start);
uint64_t vgpu_alloc_free_bytes(const struct vgpu_alloc *a);

/* ---- The device ---- */

enum vgpu_gm { VGPU_GM_LOW, VGPU_GM_HIGH };

struct vgpu_bo {
    uint64_t gm;   /* graphics address (0: not placed) */
    uint64_t gpa;  /* guest-physical address of the backing pages (contiguous) */
    uint32_t size; /* bytes, a multiple of VGPU_PAGE */
    enum vgpu_gm where;
    uint32_t epoch; /* the allocator epoch its graphics address came from */
};

/* A 32-bpp linear surface inside a buffer. */
struct vgpu_surface {
    struct vgpu_bo bo;
    uint32_t width, height; /* pixels */
    uint32_t pitch;         /* bytes per row, a multiple of 64 (the plane's stride unit) */
};

/* How a workload ended. */
enum vgpu_result {
    VGPU_OK = 0,   /* it ran: its breadcrumb arrived */
    VGPU_REJECTED, /* retired without running; the extension says why */
    VGPU_RESET,    /* dropped by an engine reset (watchdog or operator) */
    VGPU_TIMEOUT,  /* not retired within the wait's time limit */
    VGPU_ERROR,    /* no such workload, or the library could not submit */
};

struct vgpu_outcome {
    uint32_t seqno;
    enum vgpu_result result;
    uint32_t reason; /* TESSERA_REJECT_* (1..99: the scanner's reasons) */
};

struct vgpu_request {
    uint32_t seqno;
    uint32_t tail;             /* ring offset after the workload */
    uint32_t rejected, resets; /* the extension's counters when it was submitted */
};

struct vgpu_stats {
    uint64_t submitted, completed, rejected, resets, timeouts;
    uint64_t waits;      /* polls that found the GPU still busy (each one yields) */
    uint64_t busy_waits; /* timeouts passed while the GPU was busy: the wait went on */
};

struct vgpu {
    const char *name; /* prefix of every message: the guest program's name */
    uint64_t ram_bytes;
    uint16_t device;
    uint64_t bar0, bar2, bar2_size;
    volatile uint8_t *mmio; /* BAR0, identity-mapped uncached */

    /* avail_rs and the extension, as last read */
    uint64_t low_base, low_size, high_base, high_size;
    uint32_t fence_num;
    uint32_t vgt_id;
    uint32_t generation, slots, slot_mib;
    uint32_t tile_w, tile_h; /* PIPESRC_A: the guest's tile on the wall */

    struct vgpu_alloc low, high, dma;
    uint32_t epoch[2]; /* +1 when the low / high allocator is rebuilt */

    /* Every buffer with a graphics address (its struct must stay where it is until freed),
     * for re-placement; `bos_lost` if there were more than VGPU_BO_MAX. */
    struct vgpu_bo *bos[VGPU_BO_MAX];
    unsigned n_bos;
    bool bos_lost;
    const struct vgpu_surface *display; /* on the plane (vgpu_display_set) */
    bool follows_moves;
    bool ranges_unreported; /* a balloon change applied while following a move, which the
                                 * next vgpu_refresh_ranges() reports */
    uint32_t move_seen;     /* the last re-placement request answered */
    uint32_t moves;         /* re-placements followed */

    /* submission state */
    struct vgpu_bo ctx, ring, hws, bc;
    uint32_t ctx_id;
    uint32_t tail;         /* where the next command goes */
    uint32_t retired_tail; /* ring offset the GPU has consumed up to */
    uint32_t next_seqno;
    uint32_t last_retired_seqno;
    unsigned n_inflight;
    unsigned max_inflight; /* 1..VGPU_MAX_INFLIGHT (vgpu_init: VGPU_MAX_INFLIGHT) */
    struct vgpu_request inflight[VGPU_MAX_INFLIGHT]; /* oldest first */
    struct vgpu_outcome outcomes[VGPU_OUTCOMES];     /* by seqno % VGPU_OUTCOMES */
    struct vgpu_stats stats;
};

/* Everything from PCI to a submission-ready blitter.  `dma_bytes` of the top of guest RAM are
 * taken from malloc for GPU-visible pages (0: half of RAM).  Prints
 *   <name>: vgpu: <what is wrong>
 * and returns false when any part of the contract is missing. */
bool vgpu_init(struct vgpu *v, const struct tessera_boot_info *boot, const char *name,
               uint64_t dma_bytes);
/* "<name>: vgpu ready tile WxH low 0x...+0x... high 0x...+0x..." */
void vgpu_print_ready(const struct vgpu *v);

/* MMIO: register (BAR0 offset) access, and the PV page's fields. */
uint32_t vgpu_read32(const struct vgpu *v, uint32_t off);
uint64_t vgpu_read64(const struct vgpu *v, uint32_t off);
void vgpu_write32(const struct vgpu *v, uint32_t off, uint32_t val);
void vgpu_write64(const struct vgpu *v, uint32_t off, uint64_t val);
/* A field of the PV page: offsetof(struct vgt_if, ...). */
#define VGPU_PV(field) (VGT_PVINFO_PAGE + (uint32_t)offsetof(struct vgt_if, field))
/* A field of Tessera's extension: offsetof(struct tessera_balloon_if, ...). */
#define VGPU_EXT(field) \
    (VGT_PVINFO_PAGE + (uint32_t)TESSERA_BALLOON_OFFSET + \
     (uint32_t)offsetof(struct tessera_balloon_if, field))

/* ---- PCI (vgpu_pci.c) ---- */
uint32_t vgpu_pci_read32(unsigned dev, unsigned fn, unsigned off);
void vgpu_pci_write32(unsigned dev, unsigned fn, unsigned off, uint32_t val);

/* ---- Buffers and the GGTT (vgpu_bo.c) ---- */

/* Allocates `size` bytes (rounded up to pages) of DMA pages and graphics memory in `where`,
 * maps them and clears the pages.  False (with a message) if either runs out or the vGPU
 * refused a GGTT write. */
bool vgpu_bo_alloc(struct vgpu *v, struct vgpu_bo *bo, uint32_t size, enum vgpu_gm where);
/* Gives the graphics memory back (the DMA pages stay with the buffer) and places the same pages
 * at a new graphics address in bo->where: for after avail_rs changed. */
bool vgpu_bo_replace(struct vgpu *v, struct vgpu_bo *bo);
void vgpu_bo_free(struct vgpu *v, struct vgpu_bo *bo);
static inline void *vgpu_bo_cpu(const struct vgpu_bo *bo)
{
    return (void *)(uintptr_t)bo->gpa;
}
bool vgpu_surface_alloc(struct vgpu *v, struct vgpu_surface *s, uint32_t w, uint32_t h,
                        enum vgpu_gm where);

/* One raw GGTT write (8 bytes at BAR0 + 8 MiB + index * 8).  Returns true if the vGPU
 * accepted it: its `ggtt_refused` counter did not move. */
bool vgpu_ggtt_write(struct vgpu *v, uint32_t index, uint64_t pte);
uint64_t vgpu_ggtt_read(struct vgpu *v, uint32_t index);
/* Maps [gm, gm + size) to the pages at gpa; flushes (GFX_FLSH_CNTL) at the end. */
bool vgpu_ggtt_map(struct vgpu *v, uint64_t gm, uint64_t gpa, uint64_t size);
/* Fence `i` over [gm, gm + size) with the given pitch (X tiling unless y_tiled); size 0 clears
 * it.  Returns true if the vGPU accepted it (`fence_refused` did not move). */
bool vgpu_fence_set(struct vgpu *v, uint32_t i, uint32_t gm, uint32_t size, uint32_t pitch,
                    bool y_tiled);
bool vgpu_fence_write(struct vgpu *v, uint32_t i, uint64_t value);

/* True if [gm, gm + size) lies inside the guest's current ranges. */
bool vgpu_gm_owned(const struct vgpu *v, uint64_t gm, uint64_t size);

/* ---- Submission (vgpu_ring.c) ---- */

/* Appends `n` dwords (at most VGPU_SUBMIT_MAX_DW; bigger work goes in a batch) of commands
 * and a breadcrumb to the ring and submits them as one workload.  Waits (yielding) first if
 * max_inflight workloads are in flight or the ring is full.
 * Returns the workload's seqno (never 0), or 0 if it could not be submitted (too big for the
 * ring, or the GPU stopped answering). */
uint32_t vgpu_submit(struct vgpu *v, const uint32_t *cmds, uint32_t n);
/* Waits until workload `seqno` has retired and returns how it ended (the outcome is also in
 * *out if out is not NULL).  A GPU that is merely busy is waited for: when `timeout_us` has
 * passed, the vGPU's work extension (struct tessera_work_if) is asked; if the guest's work is
 * queued behind other guests' (`waiting`) or has run since the wait began or the last check
 * (`gpu_us` moved), the wait goes on for another `timeout_us`, up to VGPU_WAIT_BUSY_MAX_US in
 * all.  VGPU_TIMEOUT only when the work sat on the GPU a whole `timeout_us` without running
 * (the hypervisor's watchdog resets a workload after 200 ms of GPU time, so that is a fault),
 * or the GPU stayed busy with others' work past the maximum.  A refusal or a reset ends the
 * wait at once with its reason. */
enum vgpu_result vgpu_wait(struct vgpu *v, uint32_t seqno, uint64_t timeout_us,
                           struct vgpu_outcome *out);
/* Waits for everything in flight; returns VGPU_OK if all of it ran. */
enum vgpu_result vgpu_wait_idle(struct vgpu *v, uint64_t timeout_us);
/* Retires what has finished without waiting; returns how many are still in flight. */
unsigned vgpu_poll(struct vgpu *v);
const char *vgpu_result_name(enum vgpu_result r);

/* ---- Display (vgpu_display.c) ---- */

/* Points the primary plane at `fb` (XRGB8888, linear) and tells the vGPU the display is
 * ready (display_ready = 1 in the PV page). */
bool vgpu_display_set(struct vgpu *v, const struct vgpu_surface *fb);

/* ---- Balloon (vgpu_balloon.c) ---- */

enum vgpu_balloon_answer { VGPU_BALLOON_GRANTED, VGPU_BALLOON_REFUSED, VGPU_BALLOON_NO_ANSWER };

/* Asks for `delta` more (or, negative, fewer) high-GM slots and waits up to timeout_us for
 * the answer.  The caller must call vgpu_refresh_ranges afterwards (a grant changes
 * avail_rs). */
enum vgpu_balloon_answer vgpu_balloon_request(struct vgpu *v, int32_t delta, uint64_t timeout_us);
/* Re-reads avail_rs if the extension's generation moved (or `force`).  Returns true if the
 * ranges changed; the allocator of a range that changed is then reset (every buffer in it
 * must be re-placed with vgpu_bo_replace; the library's own ring and context live in low
 * graphics memory, which balloon changes do not touch). */
bool vgpu_refresh_ranges(struct vgpu *v, bool force);
/* The extension's counters (docs/vgpu-abi.md "Workload accounting"). */
uint32_t vgpu_ext_read(const struct vgpu *v, uint32_t ext_field_offset);

/* ---- Re-placement (vgpu_move.c; docs/vgpu-abi.md "Re-placement") ---- */

/* Tells the vGPU that this guest follows re-placements (TESSERA_MOVE_CAP_FOLLOW): from now on
 * it must call vgpu_follow_moves() regularly, before it builds commands.  False (with a
 * message) if the extension is missing or the library lost track of a buffer. */
bool vgpu_moves_enable(struct vgpu *v);
/* If the vGPU asked to move this guest: waits for its work, lets the move happen, and adds the
 * distance each range moved to every buffer's graphics address, the context's ring, the
 * status page and the plane.  Commands built before the call hold old addresses: build after
 * it.  Returns true if the ranges moved. */
bool vgpu_follow_moves(struct vgpu *v);

/* ---- CPU helpers (vgpu_crc.c, vgpu_font.c) ---- */

/* CRC-32 (IEEE 802.3, reflected 0xEDB88320, init and xorout 0xFFFFFFFF) of a w x h XRGB8888
 * image with `pitch` bytes per row, over each pixel's R, G, B bytes in row-major order: the
 * definition the hypervisor's `screenshot` uses. */
uint32_t vgpu_crc32_xrgb(const uint32_t *pixels, uint32_t w, uint32_t h, uint32_t pitch);
/* The same CRC continued over raw bytes (crc starts at 0: no prior data). */
uint32_t vgpu_crc32_update(uint32_t crc, const uint8_t *p, size_t n);

#define VGPU_FONT_W 5u
#define VGPU_FONT_H 7u
/* Draws `text` (A-Z, a-z as upper case, 0-9, space and . , : ! ? - + / ' ( ) = %) at (x, y)
 * with each font pixel a `scale` x `scale` block, clipped to the w x h image; unknown
 * characters are drawn as a box.  Returns the x after the last character. */
uint32_t vgpu_font_draw(uint32_t *pixels, uint32_t w, uint32_t h, uint32_t pitch, uint32_t x,
                        uint32_t y, const char *text, uint32_t scale, uint32_t color);
/* Width in pixels of `text` drawn at `scale` (each glyph and one column of spacing). */
uint32_t vgpu_font_width(const char *text, uint32_t scale);

/* ---- Kiosk guests' common start (vgpu_kiosk.c) ---- */

struct vgpu_kiosk {
    struct vgpu v;
    struct vgpu_surface fb; /* tile-sized, XRGB8888, in low graphics memory, on the plane */
    uint32_t bg;            /* background colour 0xRRGGBB: cmdline bg=, else the default */
};

/* vgpu_init, then a framebuffer of the tile's size cleared to the background by the GPU and
 * put on the plane, then the "<name>: vgpu ready ..." line.  False (after a message) if any
 * step fails. */
bool vgpu_kiosk_start(struct vgpu_kiosk *k, const struct tessera_boot_info *boot, const char *name,
                      uint32_t default_bg);
/* vgpu_follow_moves() for a kiosk guest, which says so when it moved:
 *   <name>: re-placed (<n>): low 0x...+0x... high 0x...+0x... */
bool vgpu_kiosk_follow(struct vgpu_kiosk *k);
/* A colour from the command line (`key=0xRRGGBB`), else `dflt`. */
uint32_t vgpu_cmdline_color(const struct tessera_boot_info *boot, const char *key, uint32_t dflt);
/* Fills a rectangle of a surface by the GPU: one workload, waited for.  Returns its result. */
enum vgpu_result vgpu_fill_wait(struct vgpu *v, const struct vgpu_surface *s, uint32_t x1,
                                uint32_t y1, uint32_t x2, uint32_t y2, uint32_t color);

#endif
