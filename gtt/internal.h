/* Helpers shared by the gtt/ sources; not part of the public API. */
#ifndef GTT_INTERNAL_H
#define GTT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gtt/gtt.h"

#define GTT_PTE_FLAGS_MASK (GEN9_GTT_PAGE_SIZE - 1) /* bits 11:0 pass through */

static inline uint32_t gtt_page_of(uint64_t addr)
{
    return (uint32_t)(addr >> GEN9_GTT_PAGE_SHIFT);
}

static inline bool gtt_slot_bit(const struct gtt_vgpu *v, unsigned s)
{
    return (v->slot_set[s / 64] >> (s % 64)) & 1u;
}

/* Slot holding entry `index`, or UINT32_MAX if the entry is not in a slot. */
static inline uint32_t gtt_slot_of(const struct gtt *g, uint32_t index)
{
    if (index < g->first_slot_entry)
        return UINT32_MAX;
    uint32_t s = (index - g->first_slot_entry) / g->slot_entries;
    return s < g->layout.n_slots ? s : UINT32_MAX;
}

/* Blocks of the low-GM owner summary: they cover the entries below slot 0. */
static inline uint32_t gtt_low_blocks(const struct gtt *g)
{
    return (g->first_slot_entry + GTT_LOW_BLOCK_ENTRIES - 1) / GTT_LOW_BLOCK_ENTRIES;
}

/* One past the last entry of block b (the last block may end early, at slot 0). */
static inline uint32_t gtt_low_block_end(const struct gtt *g, uint32_t b)
{
    uint32_t e = (b + 1) * GTT_LOW_BLOCK_ENTRIES;
    return e < g->first_slot_entry ? e : g->first_slot_entry;
}

/* The lowest slot the vGPU holds (0 if none). */
static inline unsigned gtt_first_slot(const struct gtt *g, const struct gtt_vgpu *v)
{
    for (unsigned s = 0; s < g->layout.n_slots; s++)
        if (v->slot_host[s])
            return s;
    return 0;
}

/* A fence pins the vGPU's low window: its pool copy and physical fence name those addresses. */
static inline bool gtt_fenced(const struct gtt_vgpu *v)
{
    for (unsigned i = 0; i < v->n_fences; i++)
        if (v->fence[i].pooled)
            return true;
    return false;
}

/* The vGPU's shadow cells for `index`, or false if the index is outside its ranges. */
bool gtt_lookup(const struct gtt *g, const struct gtt_vgpu *v, uint32_t index, uint64_t **host,
                uint64_t **guest);

/* Writes one physical entry on behalf of `owner` and keeps the per-slot summary right. */
void gtt_phys_set(struct gtt *g, uint32_t index, uint64_t pte, uint16_t owner);
/* Writes one physical entry (no bookkeeping) and notes that an invalidate is due. */
void gtt_phys_write(struct gtt *g, uint32_t index, uint64_t pte);
/* Writes ptes[0..n) into the physical entries [first, first + n) (no bookkeeping). */
void gtt_phys_write_run(struct gtt *g, uint32_t first, uint32_t n, const uint64_t *ptes);
/* Points the physical entries of [first, first + n) that vGPU `id` owns at the scratch page
 * (owner: nobody), keeping the slot and block summaries right as gtt_phys_set does; returns
 * how many. */
uint64_t gtt_scrub_owned(struct gtt *g, uint16_t id, uint32_t first, uint32_t n);
/* Ends a public call: if it wrote physical entries, asks for the GGTT invalidate.  Returns rc
 * so callers can `return gtt_done(g, rc);`. */
long gtt_done(struct gtt *g, long rc);

/* The fence of v covering graphics address `addr`, or NULL. */
struct gtt_vfence *gtt_fence_covering(struct gtt_vgpu *v, uint64_t addr);
/* Releases every fence of v (restoring ladder EPT mappings); used by reset and destroy.  The
 * physical registers freed are or-ed into *disable_regs (if not NULL). */
void gtt_fences_release_all(struct gtt *g, struct gtt_vgpu *v, uint32_t *disable_regs);

/* Grants / releases one slot to v (mechanism only; callers check limits). */
int gtt_slot_grant(struct gtt *g, struct gtt_vgpu *v, unsigned s);
void gtt_slot_release(struct gtt *g, struct gtt_vgpu *v, unsigned s);

/* Brings slot s of v into the physical GGTT per the copy mode; returns entries written. */
uint64_t gtt_copy_slot(struct gtt *g, struct gtt_vgpu *v, unsigned s);

void gtt_emit_ept(struct gtt *g, unsigned vgpu, uint64_t aper_off, enum gtt_ept_kind kind,
                  uint64_t target);

#endif
