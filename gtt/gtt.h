/* Graphics memory at run time: private shadow GTTs, owner-tracked switching, predictive
 * copying, ladder-mapping bookkeeping, the fence pool and slot ballooning (docs/gtt.md).
 *
 * The library never touches hardware.  What it needs from outside comes in struct gtt_ops:
 *   ggtt_write  writes one physical GGTT entry (the iGPU backend); ggtt_write_run, if given,
 *               writes a run of consecutive ones in one call;
 *   translate   turns a guest-physical page into a host-physical page and says whether the page
 *               belongs to that guest's RAM (the VMM's memory map);
 *   ept_update  tells the VMM to change the EPT mapping of one guest aperture page (ladder
 *               mapping and fence remaps; may be NULL if the caller does not map the aperture).
 *
 * Vocabulary: an "entry" is one 8-byte GGTT entry mapping one 4 KiB page; entry index i covers
 * graphics addresses [i << 12, (i + 1) << 12).  A vGPU's "ranges" are its low-GM window and its
 * granted high-GM slots.  The "owner" of a physical entry is the vGPU whose shadow value it
 * currently holds.
 *
 * All state lives in struct gtt, passed by pointer; one struct per physical GPU. */
#ifndef GTT_GTT_H
#define GTT_GTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gtt/hw.h"
#include "gtt/layout.h"
#include "gtt/balloon_ctl.h"
#include "gtt/fence_pool.h"

#define GTT_NO_VGPU     0xFFFFu /* "nobody" for running vGPU and entry owners */
#define GTT_OWNER_MIXED 0xFFFEu /* slot and block summaries: entries have different owners */
/* Below slot 0 (low GM) owners are also summarised per block of this many entries (256 KiB), so
 * a switch or a write-ahead skips a block that is the incoming vGPU's throughout without reading
 * its entries' owners.  Small enough that the blocks a window shares with its neighbours (read
 * entry by entry) stay few: windows are page-aligned, compacted ones 1-2 MiB. */
#define GTT_LOW_BLOCK_ENTRIES 64u
#define GTT_MAX_VGPU_FENCES   16u /* virtual fence registers one vGPU may have */

/* Where the VMM must point one guest aperture page (guest-physical BAR2 base + aper_off). */
enum gtt_ept_kind {
    GTT_EPT_UNMAP = 0,    /* the guest's GGTT entry is not present: map nothing */
    GTT_EPT_MAP_RAM,      /* ladder mapping: straight to host-physical page `target` */
    GTT_EPT_MAP_APERTURE, /* fenced: to the physical aperture at offset `target` */
};

struct gtt_ept_update {
    uint64_t aper_off; /* offset in the guest's aperture (= graphics address) */
    uint64_t target;   /* host-physical address, or physical-aperture offset */
    enum gtt_ept_kind kind;
};

struct gtt_ops {
    void *ctx;
    void (*ggtt_write)(void *ctx, uint32_t index, uint64_t pte);
    /* 0 and *hpa set if gpa is a page of vgpu's RAM; nonzero otherwise. */
    int (*translate)(void *ctx, unsigned vgpu, uint64_t gpa, uint64_t *hpa);
    void (*ept_update)(void *ctx, unsigned vgpu, const struct gtt_ept_update *u);
    /* The host PTE of vGPU `vgpu`'s own scratch page: what every entry of its ranges holds
     * while the guest has not mapped it (GVT-g gives each vGPU its own, gvt/gtt.c
     * scratch_pt).  Its GPU work reaches only its own ranges, so only it can ever read or
     * write that page.  0 and *pte set; nonzero if there is no memory for one (the vGPU is
     * then not created).  May be NULL: every vGPU then shares cfg.scratch_pte, which is a
     * channel between guests (one's writes to an unmapped page are the other's reads), so
     * only bookkeeping tests do that. */
    int (*vgpu_scratch)(void *ctx, unsigned vgpu, uint64_t *pte);
    /* Makes the GGTT writes so far visible to the GPU (GFX_FLSH_CNTL: the backend's
     * ggtt_flush).  Called once at the end of every call below that wrote physical entries, as
     * i915 invalidates after every GGTT update (gen8_ggtt_insert_page/_entries ->
     * ggtt->invalidate()): the GPU never works with a stale translation, and the running
     * guest's own remaps take effect for its next command.  May be NULL. */
    void (*ggtt_invalidate)(void *ctx);
    /* The EPT updates of `vgpu` since its last flush are all given (ept_update): one
     * invalidation (INVEPT) for all of them.  Called once at the end of every call below that
     * emitted updates.  May be NULL (ept_update then takes effect by itself). */
    void (*ept_flush)(void *ctx, unsigned vgpu);
    /* ptes[0..n) into entries [index, index + n).  May be NULL (ggtt_write then writes them
     * one by one).  Switches, write-aheads and scrubs write whole runs: on the software model
     * under an emulator one entry at a time cost about 2.7 us, so bringing in a guest with
     * 32 + 64 MiB took 66 ms of CPU (measured under Bochs). */
    void (*ggtt_write_run)(void *ctx, uint32_t index, uint32_t n, const uint64_t *ptes);
};

/* How a switch decides what to write (the benchmark compares them; Tessera uses ENTRY). */
enum gtt_copy_mode {
    GTT_COPY_ENTRY = 0, /* only entries whose owner differs (per-entry owner tracking) */
    GTT_COPY_RANGE,     /* a whole range (window or slot) if any entry of it differs */
    GTT_COPY_FULL,      /* every entry of the incoming vGPU's ranges (gScale-basic) */
};

/* How a vGPU's high-GM slots may be arranged. */
enum gtt_slot_mode {
    GTT_SLOTS_CONTIGUOUS = 0, /* one range [first, first + n): what i915's PV info expresses */
    GTT_SLOTS_SPARSE,         /* any set of slots (gBalloon's future work); see docs/gtt.md */
};

struct gtt_config {
    const struct gtt_layout *layout;
    struct gtt_ops ops;
    uint64_t scratch_pte; /* host PTE for entries no vGPU owns: the host's scratch page */
    enum gtt_copy_mode copy;
    enum gtt_slot_mode slots;
    unsigned host_fences;     /* physical fence registers kept for the host (< 32) */
    unsigned fences_per_vgpu; /* virtual fence registers per vGPU (0 = 4, GVT-g's default) */
    /* Balloon plans weigh sharing by the vGPUs that are active (false, Tessera's default: an
     * idle vGPU is never copied, so sharing a slot with it costs nothing), or by every vGPU
     * (true: gBalloon's Algorithm 1 exactly as published). */
    bool balloon_count_idle;
    /* Per vGPU id, its share of the fence pool for gtt_vgpu_create_from_layout() (bytes, a
     * page multiple; 0 = the fair split).  May be NULL: every vGPU gets the fair split. */
    const uint64_t *fence_pool_shares;
};

struct gtt_vgpu_spec {
    struct gtt_range low; /* low-GM window inside layout->low_guest (size may be 0) */
    unsigned n_slots;
    const unsigned *slots;         /* n_slots slot indices (contiguous mode: consecutive) */
    unsigned min_slots, max_slots; /* balloon bounds; max 0 = n_slots */
    /* Its share of the fence pool (bytes, a page multiple): a part of the pool that is its
     * own, where its fences' copies go, so no other vGPU can take it.  0 = the fair split,
     * pool size / layout's guest count (or what is left of the pool, if less). */
    uint64_t fence_pool_bytes;
};

/* One virtual fence register of a vGPU.  Applying a write is work in proportion to the fence's
 * pages (a pool copy and an EPT remap each), done in bounded steps by gtt_fence_work(). */
struct gtt_vfence {
    uint64_t guest_value;   /* what the guest wrote */
    bool pending;           /* the state below does not match guest_value yet */
    bool refused;           /* guest_value was refused: the fence stays disabled */
    bool pooled;            /* a pool range and a physical register are held */
    uint64_t applied;       /* the guest_value the held range is for */
    uint32_t mapped;        /* pages [0, mapped) of the range are copied and remapped */
    struct gtt_range guest; /* fenced guest range (graphics addresses) */
    uint64_t pool_start;    /* graphics address of the pool copy */
    unsigned phys_reg;      /* physical fence register number */
};

struct gtt_vgpu_stats {
    uint64_t switches_in;      /* times it became the render owner */
    uint64_t entries_switch;   /* entries written for it on switches */
    uint64_t entries_predict;  /* entries written for it ahead of a switch */
    uint64_t entries_balloon;  /* entries written when its slots grew while running */
    uint64_t writes_ok;        /* guest GGTT writes accepted */
    uint64_t writes_forwarded; /* ... of which reached the physical GGTT at once */
    uint64_t writes_refused;   /* guest GGTT writes refused (range or ownership) */
    uint64_t fence_writes, fence_refused;
    uint64_t fence_pages; /* pages of fence work done for it: copies, remaps, scrubs */
    uint64_t balloon_grows, balloon_shrinks, balloon_refused; /* events, not slots */
    uint64_t moves; /* re-placements (gtt_vgpu_relocate) */
};

struct gtt_vgpu {
    unsigned id;
    bool active;          /* the scheduler says it has work */
    uint64_t scratch_pte; /* what its shadow holds for entries the guest has not mapped */
    struct gtt_range low;
    uint64_t *low_host, *low_guest; /* shadow of the low window: host PTE and guest PTE */
    uint64_t *slot_set;             /* bitmap over the layout's slots */
    unsigned n_slots;
    uint64_t **slot_host, **slot_guest; /* per slot index: shadow, NULL if not granted */
    /* Entries the guest mapped (present in its view): of the low window, and per slot index.
     * Kept at every guest write so the balloon controller's utilisation is O(slots), not a
     * read of every entry of every vGPU each period (786k entries at 32 guests, about 150 ms
     * of every 500 ms period under Bochs). */
    uint32_t low_mapped;
    uint32_t *slot_mapped;
    unsigned min_slots, max_slots;
    bool slots_held; /* gtt_vgpu_hold_slots(): no shrink until released */
    unsigned n_fences;
    struct gtt_vfence fence[GTT_MAX_VGPU_FENCES];
    struct gtt_fence_pool pool; /* its share of the fence pool (size 0: none) */
    uint64_t ahead_pending;     /* entries written ahead for it since the last switch */
    unsigned prev;              /* the owner before its last switch-in (GTT_NO_VGPU: none):
                                 * whose entries it had to replace on the switch path */
    struct gtt_vgpu_stats st;
};

struct gtt_stats {
    uint64_t switches;
    uint64_t entries_switch; /* written on the switch path (the GPU waits for these) */
    uint64_t entries_last_switch;
    uint64_t max_entries_switch;
    uint64_t entries_predict; /* written ahead of a switch (CPU only, GPU busy) */
    uint64_t entries_checked; /* looked at one by one by switches and write-aheads (the
                                     * rest were skipped by a slot's or block's summary) */
    uint64_t ahead_used;      /* ... for the vGPU the next switch brought in */
    uint64_t ahead_wasted;    /* ... for a vGPU the next switch did not bring in */
    uint64_t entries_balloon;
    uint64_t entries_fence; /* written into the fence pool */
    uint64_t entries_scrub; /* written to the scratch page (init, destroy, fence free) */
    uint64_t writes_refused;
    uint64_t fence_refused;
    uint64_t balloon_grows, balloon_shrinks, balloon_refused;
    uint64_t invalidates;  /* GGTT invalidations requested (ops.ggtt_invalidate) */
    uint64_t moves;        /* re-placements of a vGPU's ranges */
    uint64_t entries_move; /* written by them (its old ranges scrubbed) */
};

struct gtt {
    struct gtt_layout layout;
    struct gtt_ops ops;
    uint64_t scratch_pte;
    enum gtt_copy_mode copy;
    enum gtt_slot_mode slot_mode;
    uint32_t n_entries;        /* entries in the GGTT */
    uint32_t slot_entries;     /* entries per slot */
    uint32_t first_slot_entry; /* entry index of slot 0 */
    uint16_t *owner;           /* per entry: owning vGPU or GTT_NO_VGPU */
    uint16_t *slot_owner;      /* per slot: owner of all its entries, or GTT_OWNER_MIXED */
    uint16_t *low_owner;       /* per block below slot 0: owner of all its entries, or
                                     * GTT_OWNER_MIXED (also when unsure: never wrong) */
    uint16_t *slot_sharers;    /* per slot: how many vGPUs hold it */
    unsigned running;          /* render owner, or GTT_NO_VGPU */
    struct gtt_vgpu *vgpu[GTT_MAX_VGPUS];
    struct gtt_fence_pool pool; /* the fence pool, handed out as each vGPU's share */
    uint32_t phys_fence_busy;   /* bitmap of physical fence registers in use */
    unsigned host_fences;
    unsigned fences_per_vgpu;
    bool balloon_count_idle;
    uint64_t fence_share[GTT_MAX_VGPUS];    /* gtt_config.fence_pool_shares */
    bool ggtt_dirty;                        /* physical entries written since the last invalidate */
    uint64_t ept_dirty[GTT_MAX_VGPUS / 64]; /* vGPUs with EPT updates not yet flushed */
    uint64_t ahead_pending; /* entries written ahead since the last switch, all vGPUs */
    struct gtt_stats st;
};

/* ---- life cycle --------------------------------------------------------------------------- */

/* Copies the layout, allocates the tracking arrays and writes the scratch PTE to every entry the
 * library manages (fence pool, guest low area, slots).  0 or GTT_EINVAL / GTT_ENOMEM. */
int gtt_init(struct gtt *g, const struct gtt_config *cfg);
void gtt_fini(struct gtt *g);

/* Creates vGPU `id` with the given ranges; shadow entries start as its own scratch PTE
 * (ops.vgpu_scratch). */
int gtt_vgpu_create(struct gtt *g, unsigned id, const struct gtt_vgpu_spec *spec);
/* Creates vGPU `id` with the ranges the layout placed for it (min 1 slot, max = its request). */
int gtt_vgpu_create_from_layout(struct gtt *g, unsigned id);
/* Releases fences, slots and shadows, and writes the scratch PTE over every physical entry the
 * vGPU still owns, so nothing in the GGTT keeps pointing at its RAM.  The physical fence
 * registers the caller must now disable are or-ed into *disable_regs (may be NULL). */
int gtt_vgpu_destroy(struct gtt *g, unsigned id, uint32_t *disable_regs);
/* Device reset of the vGPU: releases its fences (restoring ladder mappings), as above. */
int gtt_vgpu_reset(struct gtt *g, unsigned id, uint32_t *disable_regs);
struct gtt_vgpu *gtt_vgpu_get(const struct gtt *g, unsigned id);

/* ---- guest GGTT access -------------------------------------------------------------------- */

/* A guest wrote `pte` to GGTT entry `index`.  The target must be a page of the guest's RAM
 * (ops.translate), and index inside its ranges; otherwise GTT_EPERM / GTT_ERANGE and the write is
 * counted as refused.  Accepted writes update the shadow, reach the physical GGTT at once only
 * when this vGPU owns that entry, refresh the fence-pool copy if the page is fenced, and emit
 * the ladder EPT update for aperture pages. */
int gtt_guest_write(struct gtt *g, unsigned vgpu, uint32_t index, uint64_t pte);
/* What the guest last wrote to `index` (0 if never). */
int gtt_guest_read(const struct gtt *g, unsigned vgpu, uint32_t index, uint64_t *pte);
/* Ladder mapping: the host-physical page the guest's entry for aperture offset `aper_off`
 * points to; GTT_ENOENT if the entry is not present. */
int gtt_ladder_lookup(const struct gtt *g, unsigned vgpu, uint64_t aper_off, uint64_t *hpa);
/* The shadow (host) PTE the vGPU holds for `index`; GTT_ERANGE outside its ranges. */
int gtt_shadow_pte(const struct gtt *g, unsigned vgpu, uint32_t index, uint64_t *pte);
bool gtt_vgpu_covers(const struct gtt *g, unsigned vgpu, uint32_t index);

/* ---- switching ---------------------------------------------------------------------------- */

/* Makes `vgpu` the render owner: writes its shadow into the physical GGTT where needed (per the
 * copy mode).  Returns the number of entries written (>= 0) or a negative error. */
long gtt_switch_to(struct gtt *g, unsigned vgpu);
/* The scheduler will run `next` after the current owner: write now the entries of next's ranges
 * that the running vGPU does not use.  Returns entries written (counted apart from switches).
 * The next switch sorts them: written for the vGPU it brings in (st.ahead_used), or for
 * another (st.ahead_wasted: the prediction was wrong, or came too early). */
long gtt_predict(struct gtt *g, unsigned next);
/* The scheduler's view: an idle vGPU is never switched to, so it is never copied. */
int gtt_set_active(struct gtt *g, unsigned vgpu, bool active);

/* ---- fences ------------------------------------------------------------------------------- */

struct gtt_fence_result {
    bool program; /* the caller must write phys_value to physical register phys_reg */
    unsigned phys_reg;
    uint64_t phys_value; /* pool range, same pitch and tiling; 0 = disable */
    bool program_old;    /* also disable the register previously used (if it changed) */
    unsigned old_reg;
    uint32_t pages; /* pages of work this call did */
    bool done;      /* the fence now is what the guest wrote (or refused) */
};

/* The guest wrote `value` to its fence register `fence`.  What it asks for is done by
 * gtt_fence_work(): release the previous pool range (ladder mappings restored page by page,
 * pool entries scrubbed, range and register returned), then, if the value is valid, take an
 * equal range of the vGPU's share of the pool (first fit) and a physical register, copy the
 * guest's GGTT entries there and remap the guest's EPT for the range to the pool's aperture
 * pages, page by page.  Writing the value already in effect changes nothing.  Errors (counted,
 * message in err): GTT_ERANGE for a fence number the vGPU does not have. */
int gtt_fence_request(struct gtt *g, unsigned vgpu, unsigned fence, uint64_t value, char *err,
                      size_t errlen);
/* A fence of `vgpu` with work left (one whose old range must be released first), or -1. */
int gtt_fence_pending(const struct gtt *g, unsigned vgpu);
/* Up to max_pages pages of that work on fence `fence` (at least the set-up of a new range when
 * there is budget for one page).  res says what to program and whether the fence is done.
 * Errors (message in err), when the written value is refused (counted; the fence stays
 * disabled, the guest's view of the range ladder-mapped): GTT_ERANGE (range not in the guest's
 * aperture window), GTT_EINVAL (end before start, a shape whose de-tiling would leave the range:
 * gen9_fence_shape_ok(), or overlapping another of its fences), GTT_EFULL (its share of the pool
 * or the physical registers exhausted). */
int gtt_fence_work(struct gtt *g, unsigned vgpu, unsigned fence, uint32_t max_pages,
                   struct gtt_fence_result *res, char *err, size_t errlen);
/* gtt_fence_request and all of its work at once (reset paths and tests; a guest's writes go
 * through the bounded calls above). */
int gtt_fence_write(struct gtt *g, unsigned vgpu, unsigned fence, uint64_t value,
                    struct gtt_fence_result *res, char *err, size_t errlen);

/* Encoding helpers for the Gen9 fence layout. */
uint64_t gtt_fence_encode(uint64_t start, uint64_t size, uint32_t pitch_bytes, bool tiled_y,
                          bool valid);
struct gtt_fence_fields {
    uint64_t start, size; /* graphics addresses, bytes */
    uint32_t pitch_bytes;
    bool tiled_y, valid;
};
int gtt_fence_decode(uint64_t value, struct gtt_fence_fields *f);

/* ---- slots and ballooning ----------------------------------------------------------------- */

/* Grows or shrinks vGPU's slots by q.  Contiguous mode: gBalloon's Algorithm 1 picks how many at
 * each end.  Sparse mode: the least shared free-standing slots are added, the most shared are
 * removed.  Never changes another vGPU's slots.  If the vGPU is running, newly granted slots are
 * written to the physical GGTT at once.  GTT_ELIMIT beyond min/max or the slot count. */
int gtt_balloon_grow(struct gtt *g, unsigned vgpu, unsigned q);
int gtt_balloon_shrink(struct gtt *g, unsigned vgpu, unsigned q);
/* While held, the vGPU's slots are not shrunk: gtt_balloon_shrink answers GTT_EBUSY and the
 * controller treats its current slots as its minimum (its growth is still decided).  The vGPU
 * layer holds the slots of a vGPU whose preempted work is half done: that work cannot be scanned
 * again against smaller ranges. */
void gtt_vgpu_hold_slots(struct gtt *g, unsigned vgpu, bool hold);
/* The vGPU's slots in ascending order into out[cap]; returns the count. */
unsigned gtt_vgpu_slots(const struct gtt *g, unsigned vgpu, unsigned *out, unsigned cap);
bool gtt_vgpu_has_slot(const struct gtt *g, unsigned vgpu, unsigned slot);

/* One balloon-controller period on g: gathers every vGPU's slots, lets gtt_ctl_decide() choose
 * with util[id] (permille of its graphics memory in use) and req[id] (slots it asks for; both
 * indexed by vGPU id, either may be NULL = 0), and applies the decisions.  A growth that
 * Algorithm 1 cannot place counts as refused. */
struct gtt_ctl_report {
    enum gtt_ctl_band band;
    uint32_t f;                /* thousandths */
    unsigned granted, refused; /* growth requests */
    unsigned shrunk_slots;
};
int gtt_balloon_period(struct gtt *g, const struct gtt_ctl_params *p, uint32_t w_ppm,
                       uint32_t rcopy_ppm, const uint32_t *util, const unsigned *req,
                       struct gtt_ctl_report *rep);

/* ---- re-placement ------------------------------------------------------------------------- */

/* Moves vGPU's low window to `low` (its size may change) and its slot range to start at
 * `first_slot` (same count; contiguous mode), carrying its shadow: what the guest mapped at
 * offset k of a range is at offset k of the new one, so the guest only has to add the distance
 * to the graphics addresses it holds (docs/vgpu-abi.md "Re-placement").  Physical entries of
 * its old ranges that still hold its pages are pointed at the scratch page (st.entries_move);
 * its aperture pages are remapped (ept_update); nothing of another vGPU changes.  The caller
 * guarantees that no work of the vGPU is queued or on the engine.  GTT_ERANGE outside the
 * areas, GTT_EINVAL for a shrink that would drop a present entry or a slot move in sparse
 * mode, GTT_EBUSY while a fence pins its window. */
int gtt_vgpu_relocate(struct gtt *g, unsigned vgpu, struct gtt_range low, unsigned first_slot);
/* Bytes from the start of the vGPU's low window to the end of its last present entry: the
 * smallest window that keeps everything it mapped. */
uint64_t gtt_vgpu_low_extent(const struct gtt *g, unsigned vgpu);
/* Permille of the vGPU's entries (its low window and the slots it holds) that its guest has
 * mapped: how much of its graphics memory it uses, for the balloon controller.  O(slots). */
uint32_t gtt_vgpu_use_permille(const struct gtt *g, unsigned vgpu);

/* Placement planning (gtt/place.c): where busy vGPUs' ranges should be so they stop being
 * copied.  Each range is an interval of an area (low windows in pages of the guest low area,
 * slot ranges in slots); at a switch every entry of the incoming vGPU's ranges that another
 * busy vGPU used since its last turn is written, so over a cycle in which every busy vGPU
 * runs once, each unit covered by k >= 2 busy ranges is written k times, and the part that the
 * vGPU before it holds is written on the switch path (the rest can be written ahead).  The plan
 * keeps busy ranges apart where they fit and stacks the rest, consecutive vGPUs in different
 * stacks; it is returned only if it costs less than the current placement (switch path first,
 * then all entries). */
struct gtt_move {
    unsigned vgpu;
    struct gtt_range low; /* new low window (start, size) */
    unsigned first_slot;  /* new first slot */
};
struct gtt_plan_input {
    const bool *busy;         /* [GTT_MAX_VGPUS]: vGPUs that ran recently; others may overlap */
    const uint64_t *freq;     /* [GTT_MAX_VGPUS] or NULL: how often each was brought in
                                 * lately (NULL: equally often) */
    const bool *movable;      /* [GTT_MAX_VGPUS]: its guest follows re-placements */
    const uint64_t *low_want; /* [GTT_MAX_VGPUS] or NULL: the low window size its guest asks
                                 * for (smaller: compaction; larger: it needs more), never
                                 * below what it mapped; 0 = keep the size */
    uint32_t min_gain_ppm;    /* a plan must cut the cost (switch path + all entries) by at
                                 * least this part to be worth its moves; 0: any cut */
};
struct gtt_plan_report {
    uint64_t cost_now, cost_plan; /* entries written per cycle (weighted by freq), current
                                     * and planned */
    uint64_t path_now, path_plan; /* ... of which the previous owner holds (switch path) */
    unsigned moves;               /* vGPUs the plan moves */
};
/* Writes at most cap moves to out and returns how many (>= 0), or GTT_EINVAL. */
int gtt_plan(const struct gtt *g, const struct gtt_plan_input *in, struct gtt_move *out,
             unsigned cap, struct gtt_plan_report *rep);

/* The floor (gtt/floor.c): entries that must be written when n busy ranges of the given sizes
 * (in units) share an area of `area` units, over every placement, with range i brought in
 * f[i] times (f NULL: once each, a cycle of round robin).  Exact for equal sizes
 * (docs/gtt.md "The floor"); for unequal sizes the cost of packing the most often switched
 * apart and stacking the rest, an upper bound of it. */
uint64_t gtt_floor_weighted(uint64_t area, const uint64_t *size, const uint64_t *f, unsigned n);
uint64_t gtt_floor_cycle(uint64_t area, const uint64_t *size, unsigned n);
/* Cost of ranges [start[i], start[i] + size[i]) of one area, range i brought in w[i] times
 * (w NULL: once): over units covered by k >= 2 of them, the sum of their w. */
uint64_t gtt_cover_cost_weighted(const uint64_t *start, const uint64_t *size, const uint64_t *w,
                                 unsigned n);
uint64_t gtt_cover_cost(const uint64_t *start, const uint64_t *size, unsigned n);

/* ---- statistics --------------------------------------------------------------------------- */

struct gtt_vgpu_summary {
    bool exists, active;
    struct gtt_range low;
    unsigned n_slots;
    unsigned first_slot, last_slot; /* lowest and highest slot held */
    unsigned shared_slots;          /* of its slots, how many others also hold */
    unsigned max_sharing;           /* most vGPUs on any of its slots (incl. itself) */
    uint64_t fence_bytes;           /* pool bytes its fences use */
    uint64_t fence_share;           /* its share of the pool */
    unsigned fences_active, fences_pending;
    struct gtt_vgpu_stats st;
};

struct gtt_summary {
    unsigned n_vgpus, n_active;
    unsigned n_slots, slots_used, slots_shared, max_sharing;
    uint64_t pool_bytes, pool_used, pool_largest_free; /* used: by fences, in all shares */
    unsigned pool_ranges;
    struct gtt_stats st;
};

void gtt_summarize(const struct gtt *g, struct gtt_summary *s);
int gtt_vgpu_summarize(const struct gtt *g, unsigned vgpu, struct gtt_vgpu_summary *s);

#endif
