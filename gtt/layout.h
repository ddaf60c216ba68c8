/* Graphics-memory layout: where the host area, the fence pool, each guest's low-GM window and
 * each guest's high-GM slots lie in the global graphics address space, or a precise reason why
 * the requests do not fit.
 *
 *   0                 aperture_bytes                                  ggtt_bytes
 *   | host | fence pool | guest low-GM windows | slot 0 | slot 1 | ... | slot n-1 |
 *   \---------- low GM (CPU-visible) ---------/\------------ high GM (GPU only) -------/
 *
 * Guest graphics addresses equal host graphics addresses (the guest balloons out the rest), so
 * a window or slot range, once chosen, is what the guest's PV info page advertises.
 *
 * Sharing modes say what may overlap:
 *   GTT_SHARE_ALL   (default, Tessera and gScale with ladder mapping) low-GM windows and
 *                   high-GM slots may both be shared; every window must fit the low area and
 *                   every high request must fit the slots on its own.
 *   GTT_SHARE_HIGH  only slots are shared; low-GM windows are partitioned (gScale without
 *                   ladder mapping).
 *   GTT_SHARE_NONE  static partition (GVT-g): nothing overlaps.
 * max_share (0 = no limit) caps how many guests may map the same page, so a configuration can
 * bound the copying cost that sharing brings.
 *
 * This header is used by the configuration checker: keep the API stable. */
#ifndef GTT_LAYOUT_H
#define GTT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "gtt/err.h"
#include "gtt/hw.h"
#include "tessera/limits.h"

#define GTT_MIB                (UINT64_C(1) << 20)
#define GTT_DEFAULT_GGTT_BYTES GEN9_GGTT_MAX_BYTES /* Gen9: 4 GiB */
#define GTT_DEFAULT_APERTURE   (UINT64_C(256) * GTT_MIB)
/* Host area: the hypervisor's own contexts, status pages and one 1920x1080x4 composition
 * framebuffer (about 8 MiB) with room for a second buffer. */
#define GTT_DEFAULT_HOST_AREA (UINT64_C(16) * GTT_MIB)
/* Fence pool: room for two fenced 1080p scanout buffers per busy guest with a few busy guests;
 * gScale reserved much more (300 MB) for higher resolutions. */
#define GTT_DEFAULT_FENCE_POOL (UINT64_C(32) * GTT_MIB)
#define GTT_DEFAULT_SLOT_BYTES (UINT64_C(64) * GTT_MIB) /* gBalloon's slot size */

#define GTT_MAX_VGPUS 128u /* vGPU ids 0..127; the config may ask for fewer */
_Static_assert(GTT_MAX_VGPUS >= TESSERA_MAX_GUESTS, "every guest has a vGPU id");

/* Error codes: GTT_EINVAL, GTT_ENOSPC, GTT_ETOOMANY (see gtt/err.h). */

enum gtt_share_mode {
    GTT_SHARE_ALL = 0,
    GTT_SHARE_HIGH = 1,
    GTT_SHARE_NONE = 2,
};

struct gtt_guest_request {
    uint64_t low_gm_bytes;  /* CPU-visible (aperture) graphics memory */
    uint64_t high_gm_bytes; /* GPU-only graphics memory; rounded up to whole slots */
};

struct gtt_layout_params {
    uint64_t ggtt_bytes;     /* size of the global graphics address space */
    uint64_t aperture_bytes; /* low GM = [0, aperture_bytes) */
    uint64_t host_area_bytes;
    uint64_t fence_pool_bytes;
    uint64_t slot_bytes;
    unsigned n_guests;
    const struct gtt_guest_request *req; /* n_guests entries, index = vGPU id */
    enum gtt_share_mode share;
    unsigned max_share; /* 0 = no limit */
};

/* A half-open range of graphics addresses [start, start + size). */
struct gtt_range {
    uint64_t start;
    uint64_t size;
};

struct gtt_guest_layout {
    struct gtt_range low; /* low-GM window (size 0 if none asked) */
    unsigned first_slot;  /* initial contiguous slot range */
    unsigned n_slots;
};

struct gtt_layout {
    uint64_t ggtt_bytes;
    uint64_t aperture_bytes;
    uint64_t slot_bytes;
    struct gtt_range host;
    struct gtt_range fence_pool;
    struct gtt_range low_guest; /* what is left of low GM for guest windows */
    struct gtt_range slots;     /* slot 0 .. n_slots-1, slot-aligned inside high GM */
    unsigned n_slots;
    enum gtt_share_mode share;
    unsigned n_guests;
    struct gtt_guest_layout guest[GTT_MAX_VGPUS];
    unsigned max_low_share;  /* most guests whose low windows cover one page */
    unsigned max_slot_share; /* most guests placed in one slot */
};

/* Fills *p with the defaults above for n guests asking req[] (sharing all, no cap). */
void gtt_layout_defaults(struct gtt_layout_params *p, unsigned n_guests,
                         const struct gtt_guest_request *req);

/* Computes the layout.  Returns 0, or GTT_EINVAL / GTT_ENOSPC / GTT_ETOOMANY with a one-line
 * human message in err (if err != NULL and errlen > 0), e.g.
 *   "low graphics memory: guests ask 1088 MiB, aperture (1024 MiB) leaves 960 MiB after host
 *    area (16 MiB) and fence pool (48 MiB): 128 MiB short"
 * Initial placement minimises sharing: each guest's window and slot range go where the fewest
 * guests already are (leftmost on ties). */
int gtt_layout_compute(const struct gtt_layout_params *p, struct gtt_layout *out, char *err,
                       size_t errlen);

/* Address of slot s (no range check). */
uint64_t gtt_layout_slot_addr(const struct gtt_layout *l, unsigned s);

/* Number of slots a high-GM request needs (rounded up). */
unsigned gtt_layout_slots_for(const struct gtt_layout *l, uint64_t high_gm_bytes);

#endif
