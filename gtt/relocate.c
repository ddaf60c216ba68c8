/* Re-placement: moving a vGPU's low window and slot range to another place of the GGTT with
 * what its guest mapped in them.  Placement decides how much is copied at every
 * switch (gtt/place.c plans it); the initial placement is made before anyone knows which
 * guests will be busy, so busy ones are moved apart later, with their guest's cooperation
 * (vmm/vgpu/core/vgpu_move.c: the guest stops submitting, the move happens, the guest adds the
 * distance to the graphics addresses it holds).
 *
 * The shadow moves with the range: entry k of the old window is entry k of the new one, for
 * the host PTE and for what the guest wrote.  Physical entries of the old ranges that still
 * hold this guest's pages are pointed at the scratch page, as a slot given back is
 * (gtt_slot_release): they are outside its ranges now, and left as they were they would look
 * up to date to the owner tracking should the range come back.  The new ranges are written
 * by the vGPU's next switch (their entries are someone else's, or nobody's). */
#include <stdlib.h>
#include <string.h>

#include "gtt/gtt.h"
#include "gtt/internal.h"

#define PAGE GTT_PAGE_BYTES

uint64_t gtt_vgpu_low_extent(const struct gtt *g, unsigned vgpu)
{
    const struct gtt_vgpu *v = gtt_vgpu_get(g, vgpu);
    if (!v)
        return 0;
    for (uint32_t k = gtt_page_of(v->low.size); k > 0; k--)
        if (v->low_guest[k - 1] & GEN9_GGTT_PTE_PRESENT)
            return (uint64_t)k * PAGE;
    return 0;
}

static int check(const struct gtt *g, const struct gtt_vgpu *v, struct gtt_range low,
                 unsigned first_slot, bool move_low, bool move_slots)
{
    const struct gtt_layout *l = &g->layout;
    if (move_low) {
        if (low.start % PAGE || low.size % PAGE || (v->low.size && !low.size) ||
            (!v->low.size && low.size))
            return GTT_EINVAL;
        if (low.start < l->low_guest.start || low.size > l->low_guest.size ||
            low.start - l->low_guest.start > l->low_guest.size - low.size)
            return GTT_ERANGE;
        if (low.size < v->low.size && gtt_vgpu_low_extent(g, v->id) > low.size)
            return GTT_EINVAL; /* it would lose pages it mapped */
        if (gtt_fenced(v))
            return GTT_EBUSY;
    }
    if (move_slots) {
        if (g->slot_mode != GTT_SLOTS_CONTIGUOUS)
            return GTT_EINVAL;
        if (first_slot > l->n_slots || v->n_slots > l->n_slots - first_slot)
            return GTT_ERANGE;
    }
    return 0;
}

/* The low window moves: physical entries scrubbed, shadow carried (cut or extended with the
 * vGPU's scratch page), aperture pages unmapped at the old offsets and mapped at the new. */
static int move_low(struct gtt *g, struct gtt_vgpu *v, struct gtt_range low)
{
    uint32_t n_old = gtt_page_of(v->low.size), n_new = gtt_page_of(low.size);
    uint64_t *host = malloc((size_t)n_new * sizeof *host);
    uint64_t *guest = calloc(n_new, sizeof *guest);
    if (!host || !guest) {
        free(host);
        free(guest);
        return GTT_ENOMEM;
    }
    for (uint32_t k = 0; k < n_new; k++) {
        host[k] = k < n_old ? v->low_host[k] : v->scratch_pte;
        guest[k] = k < n_old ? v->low_guest[k] : 0;
    }
    uint64_t w = gtt_scrub_owned(g, (uint16_t)v->id, gtt_page_of(v->low.start), n_old);
    g->st.entries_move += w;
    g->st.entries_scrub += w;
    for (uint32_t k = 0; k < n_old; k++)
        if (v->low_guest[k] & GEN9_GGTT_PTE_PRESENT)
            gtt_emit_ept(g, v->id, v->low.start + (uint64_t)k * PAGE, GTT_EPT_UNMAP, 0);
    for (uint32_t k = 0; k < n_new; k++)
        if (guest[k] & GEN9_GGTT_PTE_PRESENT)
            gtt_emit_ept(g, v->id, low.start + (uint64_t)k * PAGE, GTT_EPT_MAP_RAM,
                         host[k] & GEN9_GGTT_PTE_ADDR_MASK);
    free(v->low_host);
    free(v->low_guest);
    v->low_host = host;
    v->low_guest = guest;
    v->low = low;
    return 0;
}

/* The slot range moves by whole slots: shadows and their mapped counts re-keyed (through h[],
 * q[] and c[], room for v->n_slots each), sharer counts and the bitmap follow. */
static void move_slots(struct gtt *g, struct gtt_vgpu *v, unsigned first_slot, uint64_t **h,
                       uint64_t **q, uint32_t *c)
{
    unsigned n = 0;
    for (unsigned s = 0; s < g->layout.n_slots; s++) {
        if (!v->slot_host[s])
            continue;
        uint16_t was = g->slot_owner[s];
        if (was == v->id || was == GTT_OWNER_MIXED) {
            uint64_t w = gtt_scrub_owned(g, (uint16_t)v->id,
                                         g->first_slot_entry + s * g->slot_entries,
                                         g->slot_entries);
            g->st.entries_move += w;
            g->st.entries_scrub += w;
            if (was == v->id)
                g->slot_owner[s] = GTT_NO_VGPU; /* wholly scrubbed: uniform again */
        }
        h[n] = v->slot_host[s];
        q[n] = v->slot_guest[s];
        c[n] = v->slot_mapped[s];
        n++;
        v->slot_host[s] = v->slot_guest[s] = NULL;
        v->slot_mapped[s] = 0;
        v->slot_set[s / 64] &= ~(UINT64_C(1) << (s % 64));
        g->slot_sharers[s]--;
    }
    for (unsigned k = 0; k < n; k++) {
        unsigned s = first_slot + k;
        v->slot_host[s] = h[k];
        v->slot_guest[s] = q[k];
        v->slot_mapped[s] = c[k];
        v->slot_set[s / 64] |= UINT64_C(1) << (s % 64);
        g->slot_sharers[s]++;
    }
}

int gtt_vgpu_relocate(struct gtt *g, unsigned vgpu, struct gtt_range low, unsigned first_slot)
{
    struct gtt_vgpu *v = g ? gtt_vgpu_get(g, vgpu) : NULL;
    if (!v)
        return GTT_ENOENT;
    unsigned cur_first = gtt_first_slot(g, v);
    bool mv_low = low.start != v->low.start || low.size != v->low.size;
    bool mv_slots = v->n_slots && first_slot != cur_first;
    if (!mv_low && !mv_slots)
        return 0;
    int rc = check(g, v, low, first_slot, mv_low, mv_slots);
    if (rc)
        return rc;
    uint64_t **h = NULL, **q = NULL;
    uint32_t *c = NULL;
    if (mv_slots) {
        h = malloc(v->n_slots * sizeof *h);
        q = malloc(v->n_slots * sizeof *q);
        c = malloc(v->n_slots * sizeof *c);
        if (!h || !q || !c) {
            free(h);
            free(q);
            free(c);
            return GTT_ENOMEM;
        }
    }
    if (mv_low)
        rc = move_low(g, v, low);
    if (rc == 0 && mv_slots)
        move_slots(g, v, first_slot, h, q, c);
    free(h);
    free(q);
    free(c);
    if (rc)
        return rc;
    /* Its view is no longer what the physical GGTT holds: the next switch writes it. */
    if (g->running == vgpu)
        g->running = GTT_NO_VGPU;
    v->st.moves++;
    g->st.moves++;
    return (int)gtt_done(g, 0);
}
