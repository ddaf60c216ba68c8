/* Life cycle of struct gtt and its vGPUs, the private shadow GTT, guest GGTT writes and the
 * ladder-mapping bookkeeping. */
#include <stdlib.h>
#include <string.h>

#include "gtt/gtt.h"
#include "gtt/internal.h"

#define PAGE GTT_PAGE_BYTES

const char *gtt_strerror(int code)
{
    switch (code) {
    case 0:
        return "ok";
    case GTT_EINVAL:
        return "invalid argument";
    case GTT_ENOSPC:
        return "does not fit";
    case GTT_ETOOMANY:
        return "too many vGPUs";
    case GTT_ERANGE:
        return "outside the vGPU's ranges";
    case GTT_EPERM:
        return "page not owned by the guest";
    case GTT_ENOMEM:
        return "out of memory";
    case GTT_ENOENT:
        return "no such object";
    case GTT_EEXIST:
        return "already exists";
    case GTT_ELIMIT:
        return "beyond the balloon limits";
    case GTT_EFULL:
        return "pool exhausted";
    case GTT_EBUSY:
        return "pinned by its fences";
    default:
        return "unknown error";
    }
}

void gtt_emit_ept(struct gtt *g, unsigned vgpu, uint64_t aper_off, enum gtt_ept_kind kind,
                  uint64_t target)
{
    if (!g->ops.ept_update)
        return;
    struct gtt_ept_update u = { .aper_off = aper_off, .target = target, .kind = kind };
    g->ops.ept_update(g->ops.ctx, vgpu, &u);
    if (vgpu < GTT_MAX_VGPUS)
        g->ept_dirty[vgpu / 64] |= 1ull << (vgpu % 64);
}

void gtt_phys_write(struct gtt *g, uint32_t index, uint64_t pte)
{
    g->ops.ggtt_write(g->ops.ctx, index, pte);
    g->ggtt_dirty = true;
}

void gtt_phys_write_run(struct gtt *g, uint32_t first, uint32_t n, const uint64_t *ptes)
{
    if (!n)
        return;
    if (g->ops.ggtt_write_run)
        g->ops.ggtt_write_run(g->ops.ctx, first, n, ptes);
    else
        for (uint32_t k = 0; k < n; k++)
            g->ops.ggtt_write(g->ops.ctx, first + k, ptes[k]);
    g->ggtt_dirty = true;
}

#define SCRUB_CHUNK 64u /* scratch PTEs written per run call */

/* A run of SCRUB_CHUNK scratch entries, the source of the run writes below. */
static void scratch_run(const struct gtt *g, uint64_t *out)
{
    for (unsigned k = 0; k < SCRUB_CHUNK; k++)
        out[k] = g->scratch_pte;
}

uint64_t gtt_scrub_owned(struct gtt *g, uint16_t id, uint32_t first, uint32_t n)
{
    uint64_t scratch[SCRUB_CHUNK], w = 0;
    scratch_run(g, scratch);
    for (uint32_t i = first, end = first + n; i < end;) {
        if (g->owner[i] != id) {
            i++;
            continue;
        }
        uint32_t run = 0;
        while (i + run < end && run < SCRUB_CHUNK && g->owner[i + run] == id)
            run++;
        gtt_phys_write_run(g, i, run, scratch);
        for (uint32_t k = i; k < i + run; k++) {
            g->owner[k] = GTT_NO_VGPU;
            uint32_t s = gtt_slot_of(g, k);
            if (s != UINT32_MAX && g->slot_owner[s] != GTT_NO_VGPU)
                g->slot_owner[s] = GTT_OWNER_MIXED; /* as gtt_phys_set */
            if (k < g->first_slot_entry && g->low_owner[k / GTT_LOW_BLOCK_ENTRIES] != GTT_NO_VGPU)
                g->low_owner[k / GTT_LOW_BLOCK_ENTRIES] = GTT_OWNER_MIXED;
        }
        i += run;
        w += run;
    }
    return w;
}

/* Every entry of [lo, hi) to the scratch page, SCRUB_CHUNK entries per run call (as
 * gtt_scrub_owned): at start-up that is the whole GGTT the library manages, a million entries
 * for 4 GiB, and entry by entry the backend pays a call (the GPU model a memory write) each. */
static void scrub_range(struct gtt *g, uint32_t lo, uint32_t hi)
{
    uint64_t scratch[SCRUB_CHUNK];
    scratch_run(g, scratch);
    for (uint32_t i = lo; i < hi;) {
        uint32_t run = hi - i < SCRUB_CHUNK ? hi - i : SCRUB_CHUNK;
        gtt_phys_write_run(g, i, run, scratch);
        i += run;
    }
    g->st.entries_scrub += hi - lo;
}

long gtt_done(struct gtt *g, long rc)
{
    for (unsigned w = 0; w < GTT_MAX_VGPUS / 64; w++)
        for (; g->ept_dirty[w]; g->ept_dirty[w] &= g->ept_dirty[w] - 1)
            if (g->ops.ept_flush)
                g->ops.ept_flush(g->ops.ctx, w * 64u + (unsigned)__builtin_ctzll(g->ept_dirty[w]));
    if (g->ggtt_dirty) {
        g->ggtt_dirty = false;
        g->st.invalidates++;
        if (g->ops.ggtt_invalidate)
            g->ops.ggtt_invalidate(g->ops.ctx);
    }
    return rc;
}

void gtt_phys_set(struct gtt *g, uint32_t index, uint64_t pte, uint16_t owner)
{
    gtt_phys_write(g, index, pte);
    g->owner[index] = owner;
    uint32_t s = gtt_slot_of(g, index);
    if (s != UINT32_MAX && g->slot_owner[s] != owner)
        g->slot_owner[s] = GTT_OWNER_MIXED; /* whole-slot writers set it back themselves */
    if (index < g->first_slot_entry && g->low_owner[index / GTT_LOW_BLOCK_ENTRIES] != owner)
        g->low_owner[index / GTT_LOW_BLOCK_ENTRIES] = GTT_OWNER_MIXED; /* likewise */
}

static uint64_t *alloc_entries(uint32_t n, uint64_t fill)
{
    uint64_t *a = malloc((size_t)n * sizeof *a);
    if (a)
        for (uint32_t i = 0; i < n; i++)
            a[i] = fill;
    return a;
}

int gtt_init(struct gtt *g, const struct gtt_config *cfg)
{
    if (!g || !cfg || !cfg->layout || !cfg->ops.ggtt_write || !cfg->ops.translate)
        return GTT_EINVAL;
    const struct gtt_layout *l = cfg->layout;
    if (l->ggtt_bytes == 0 || l->ggtt_bytes % PAGE || l->slot_bytes == 0 || l->slot_bytes % PAGE ||
        l->slots.start % PAGE || l->n_guests > GTT_MAX_VGPUS ||
        l->slots.start + l->slots.size > l->ggtt_bytes || l->aperture_bytes > l->ggtt_bytes ||
        l->fence_pool.start % PAGE || l->fence_pool.size % PAGE ||
        l->fence_pool.start + l->fence_pool.size > l->aperture_bytes ||
        l->low_guest.start + l->low_guest.size > l->aperture_bytes ||
        l->slots.start < l->aperture_bytes || (uint64_t)l->n_slots * l->slot_bytes != l->slots.size)
        return GTT_EINVAL;
    if (cfg->host_fences >= GEN9_FENCE_COUNT || cfg->fences_per_vgpu > GTT_MAX_VGPU_FENCES)
        return GTT_EINVAL;
    if (cfg->copy > GTT_COPY_FULL || cfg->slots > GTT_SLOTS_SPARSE)
        return GTT_EINVAL;
    memset(g, 0, sizeof *g);
    g->layout = *l;
    g->ops = cfg->ops;
    g->scratch_pte = cfg->scratch_pte;
    g->copy = cfg->copy;
    g->slot_mode = cfg->slots;
    g->host_fences = cfg->host_fences;
    for (unsigned i = 0; cfg->fence_pool_shares && i < GTT_MAX_VGPUS && i < l->n_guests; i++)
        g->fence_share[i] = cfg->fence_pool_shares[i];
    g->fences_per_vgpu = cfg->fences_per_vgpu ? cfg->fences_per_vgpu : 4;
    g->balloon_count_idle = cfg->balloon_count_idle;
    g->running = GTT_NO_VGPU;
    g->n_entries = (uint32_t)(l->ggtt_bytes / PAGE);
    g->slot_entries = (uint32_t)(l->slot_bytes / PAGE);
    g->first_slot_entry = gtt_page_of(l->slots.start);
    g->owner = malloc((size_t)g->n_entries * sizeof *g->owner);
    unsigned ns = l->n_slots ? l->n_slots : 1;
    g->slot_owner = malloc(ns * sizeof *g->slot_owner);
    g->slot_sharers = calloc(ns, sizeof *g->slot_sharers);
    uint32_t nb = gtt_low_blocks(g);
    g->low_owner = malloc((nb ? nb : 1) * sizeof *g->low_owner);
    if (!g->owner || !g->slot_owner || !g->slot_sharers || !g->low_owner) {
        gtt_fini(g);
        return GTT_ENOMEM;
    }
    for (uint32_t i = 0; i < g->n_entries; i++)
        g->owner[i] = GTT_NO_VGPU;
    for (unsigned s = 0; s < ns; s++)
        g->slot_owner[s] = GTT_NO_VGPU;
    for (uint32_t b = 0; b < nb; b++)
        g->low_owner[b] = GTT_NO_VGPU;
    for (unsigned i = 0; i < g->host_fences; i++)
        g->phys_fence_busy |= 1u << i;
    gtt_pool_init(&g->pool, l->fence_pool.start, l->fence_pool.size);

    /* Start from a known state: everything the library manages points at the scratch page. */
    scrub_range(g, gtt_page_of(l->fence_pool.start), gtt_page_of(l->aperture_bytes));
    scrub_range(g, gtt_page_of(l->slots.start), gtt_page_of(l->slots.start + l->slots.size));
    return (int)gtt_done(g, 0);
}

static void vgpu_free(struct gtt *g, struct gtt_vgpu *v)
{
    if (!v)
        return;
    if (v->pool.size)
        gtt_pool_free(&g->pool, v->pool.base); /* its share of the fence pool */
    if (v->slot_host)
        for (unsigned s = 0; s < g->layout.n_slots; s++) {
            free(v->slot_host[s]);
            free(v->slot_guest[s]);
        }
    free(v->slot_host);
    free(v->slot_guest);
    free(v->slot_mapped);
    free(v->slot_set);
    free(v->low_host);
    free(v->low_guest);
    free(v);
}

void gtt_fini(struct gtt *g)
{
    if (!g)
        return;
    for (unsigned i = 0; i < GTT_MAX_VGPUS; i++) {
        vgpu_free(g, g->vgpu[i]);
        g->vgpu[i] = NULL;
    }
    free(g->owner);
    free(g->slot_owner);
    free(g->slot_sharers);
    free(g->low_owner);
    g->owner = NULL;
    g->slot_owner = NULL;
    g->low_owner = NULL;
    g->slot_sharers = NULL;
}

struct gtt_vgpu *gtt_vgpu_get(const struct gtt *g, unsigned id)
{
    return id < GTT_MAX_VGPUS ? g->vgpu[id] : NULL;
}

int gtt_slot_grant(struct gtt *g, struct gtt_vgpu *v, unsigned s)
{
    uint64_t *h = alloc_entries(g->slot_entries, v->scratch_pte);
    uint64_t *q = calloc(g->slot_entries, sizeof *q);
    if (!h || !q) {
        free(h);
        free(q);
        return GTT_ENOMEM;
    }
    v->slot_host[s] = h;
    v->slot_guest[s] = q;
    v->slot_set[s / 64] |= UINT64_C(1) << (s % 64);
    v->n_slots++;
    g->slot_sharers[s]++;
    return 0;
}

void gtt_slot_release(struct gtt *g, struct gtt_vgpu *v, unsigned s)
{
    /* The guest gave the slot back: physical entries still holding its pages are pointed at the
     * scratch page.  Leaving them would be harmless for isolation (its own RAM) but wrong for
     * tracking: were the slot granted back, they would look up to date while the new shadow is
     * empty.  Whoever holds the slot and is running owns all of it, so entries owned by v are
     * never in use by the running vGPU. */
    uint16_t was = g->slot_owner[s];
    if (was == v->id || was == GTT_OWNER_MIXED) {
        g->st.entries_scrub += gtt_scrub_owned(g, (uint16_t)v->id,
                                               g->first_slot_entry + s * g->slot_entries,
                                               g->slot_entries);
        if (was == v->id)
            g->slot_owner[s] = GTT_NO_VGPU; /* wholly scrubbed: uniform again */
    }
    free(v->slot_host[s]);
    free(v->slot_guest[s]);
    v->slot_host[s] = v->slot_guest[s] = NULL;
    v->slot_mapped[s] = 0;
    v->slot_set[s / 64] &= ~(UINT64_C(1) << (s % 64));
    v->n_slots--;
    g->slot_sharers[s]--;
}

static int check_spec(const struct gtt *g, const struct gtt_vgpu_spec *sp)
{
    const struct gtt_layout *l = &g->layout;
    if (sp->low.size) {
        if (sp->low.start % PAGE || sp->low.size % PAGE || sp->low.start < l->low_guest.start ||
            sp->low.start + sp->low.size > l->low_guest.start + l->low_guest.size)
            return GTT_ERANGE;
    }
    if (sp->n_slots && !sp->slots)
        return GTT_EINVAL;
    unsigned max = sp->max_slots ? sp->max_slots : sp->n_slots;
    if (sp->min_slots > sp->n_slots || sp->n_slots > max || max > l->n_slots)
        return GTT_ELIMIT;
    for (unsigned i = 0; i < sp->n_slots; i++) {
        if (sp->slots[i] >= l->n_slots)
            return GTT_ERANGE;
        for (unsigned j = 0; j < i; j++)
            if (sp->slots[j] == sp->slots[i])
                return GTT_EINVAL;
        if (g->slot_mode == GTT_SLOTS_CONTIGUOUS && i > 0 && sp->slots[i] != sp->slots[0] + i)
            return GTT_EINVAL;
    }
    return 0;
}

int gtt_vgpu_create(struct gtt *g, unsigned id, const struct gtt_vgpu_spec *sp)
{
    if (!g || !sp || id >= GTT_MAX_VGPUS)
        return GTT_EINVAL;
    if (g->vgpu[id])
        return GTT_EEXIST;
    int rc = check_spec(g, sp);
    if (rc)
        return rc;
    struct gtt_vgpu *v = calloc(1, sizeof *v);
    if (!v)
        return GTT_ENOMEM;
    unsigned ns = g->layout.n_slots;
    v->id = id;
    v->low = sp->low;
    v->min_slots = sp->min_slots;
    v->max_slots = sp->max_slots ? sp->max_slots : sp->n_slots;
    v->n_fences = g->fences_per_vgpu;
    v->scratch_pte = g->scratch_pte;
    /* Its share of the fence pool: what the spec says (it must fit), or the fair split (as
     * much of it as is left). */
    uint64_t share = sp->fence_pool_bytes, base = 0;
    if (share % GEN9_GTT_PAGE_SIZE) {
        free(v);
        return GTT_EINVAL;
    }
    if (!share) {
        share = g->pool.size / (g->layout.n_guests ? g->layout.n_guests : 1) &
                ~(uint64_t)(GEN9_GTT_PAGE_SIZE - 1);
        if (share > gtt_pool_largest_free(&g->pool))
            share = gtt_pool_largest_free(&g->pool);
    }
    if (share && gtt_pool_alloc(&g->pool, share, &base) != 0) {
        free(v);
        return GTT_EFULL;
    }
    gtt_pool_init(&v->pool, base, share);
    v->prev = GTT_NO_VGPU;
    if (g->ops.vgpu_scratch && g->ops.vgpu_scratch(g->ops.ctx, id, &v->scratch_pte) != 0) {
        free(v);
        return GTT_ENOMEM;
    }
    v->slot_set = calloc(ns / 64 + 1, sizeof *v->slot_set);
    v->slot_host = calloc(ns ? ns : 1, sizeof *v->slot_host);
    v->slot_guest = calloc(ns ? ns : 1, sizeof *v->slot_guest);
    v->slot_mapped = calloc(ns ? ns : 1, sizeof *v->slot_mapped);
    uint32_t nlow = gtt_page_of(sp->low.size);
    if (nlow) {
        v->low_host = alloc_entries(nlow, v->scratch_pte);
        v->low_guest = calloc(nlow, sizeof *v->low_guest);
    }
    if (!v->slot_set || !v->slot_host || !v->slot_guest || !v->slot_mapped ||
        (nlow && (!v->low_host || !v->low_guest))) {
        vgpu_free(g, v);
        return GTT_ENOMEM;
    }
    for (unsigned i = 0; i < sp->n_slots; i++) {
        rc = gtt_slot_grant(g, v, sp->slots[i]);
        if (rc) {
            for (unsigned s = 0; s < ns; s++)
                if (v->slot_host[s])
                    gtt_slot_release(g, v, s);
            vgpu_free(g, v);
            return rc;
        }
    }
    g->vgpu[id] = v;
    return 0;
}

int gtt_vgpu_create_from_layout(struct gtt *g, unsigned id)
{
    if (!g || id >= g->layout.n_guests)
        return GTT_ENOENT;
    const struct gtt_guest_layout *gl = &g->layout.guest[id];
    unsigned slots[GTT_MAX_VGPUS];
    unsigned *sl = gl->n_slots <= GTT_MAX_VGPUS ? slots : malloc(gl->n_slots * sizeof *sl);
    if (!sl)
        return GTT_ENOMEM;
    for (unsigned i = 0; i < gl->n_slots; i++)
        sl[i] = gl->first_slot + i;
    struct gtt_vgpu_spec sp = {
        .low = gl->low,
        .n_slots = gl->n_slots,
        .slots = sl,
        .min_slots = gl->n_slots ? 1 : 0,
        .max_slots = gl->n_slots,
        .fence_pool_bytes = g->fence_share[id],
    };
    int rc = gtt_vgpu_create(g, id, &sp);
    if (sl != slots)
        free(sl);
    return rc;
}

int gtt_vgpu_reset(struct gtt *g, unsigned id, uint32_t *disable_regs)
{
    struct gtt_vgpu *v = g ? gtt_vgpu_get(g, id) : NULL;
    if (!v)
        return GTT_ENOENT;
    gtt_fences_release_all(g, v, disable_regs);
    return (int)gtt_done(g, 0);
}

int gtt_vgpu_destroy(struct gtt *g, unsigned id, uint32_t *disable_regs)
{
    struct gtt_vgpu *v = g ? gtt_vgpu_get(g, id) : NULL;
    if (!v)
        return GTT_ENOENT;
    gtt_fences_release_all(g, v, disable_regs);
    /* Scrub every physical entry still holding this guest's pages, wherever it is (slots it
     * gave back keep their owner until someone else needs them). */
    for (uint32_t i = 0; i < g->n_entries; i++)
        if (g->owner[i] == id) {
            gtt_phys_set(g, i, g->scratch_pte, GTT_NO_VGPU);
            g->st.entries_scrub++;
        }
    for (unsigned s = 0; s < g->layout.n_slots; s++) {
        if (v->slot_host[s])
            gtt_slot_release(g, v, s);
        if (g->slot_owner[s] == GTT_OWNER_MIXED) {
            /* Recompute the summary now that the slot may be uniform again. */
            uint32_t base = g->first_slot_entry + s * g->slot_entries;
            uint16_t o = g->owner[base];
            for (uint32_t k = 1; k < g->slot_entries && o != GTT_OWNER_MIXED; k++)
                if (g->owner[base + k] != o)
                    o = GTT_OWNER_MIXED;
            g->slot_owner[s] = o;
        }
    }
    if (g->running == id)
        g->running = GTT_NO_VGPU;
    g->st.ahead_wasted += v->ahead_pending; /* written ahead for it, never used */
    g->ahead_pending -= v->ahead_pending;
    g->vgpu[id] = NULL;
    vgpu_free(g, v);
    return (int)gtt_done(g, 0);
}

/* ---- shadow lookups ----------------------------------------------------------------------- */

bool gtt_lookup(const struct gtt *g, const struct gtt_vgpu *v, uint32_t index, uint64_t **host,
                uint64_t **guest)
{
    uint32_t lo = gtt_page_of(v->low.start), n = gtt_page_of(v->low.size);
    if (index >= lo && index - lo < n) {
        *host = &v->low_host[index - lo];
        *guest = &v->low_guest[index - lo];
        return true;
    }
    uint32_t s = gtt_slot_of(g, index);
    if (s == UINT32_MAX || !v->slot_host[s])
        return false;
    uint32_t k = index - g->first_slot_entry - s * g->slot_entries;
    *host = &v->slot_host[s][k];
    *guest = &v->slot_guest[s][k];
    return true;
}

bool gtt_vgpu_covers(const struct gtt *g, unsigned vgpu, uint32_t index)
{
    const struct gtt_vgpu *v = gtt_vgpu_get(g, vgpu);
    uint64_t *h, *q;
    return v && gtt_lookup(g, v, index, &h, &q);
}

/* One of a vGPU's two views of entry `index`: the shadow (host value) or what the guest wrote. */
static int read_entry(const struct gtt *g, unsigned vgpu, uint32_t index, bool guest_view,
                      uint64_t *pte)
{
    const struct gtt_vgpu *v = gtt_vgpu_get(g, vgpu);
    uint64_t *h, *q;
    if (!v)
        return GTT_ENOENT;
    if (!gtt_lookup(g, v, index, &h, &q))
        return GTT_ERANGE;
    *pte = guest_view ? *q : *h;
    return 0;
}

int gtt_shadow_pte(const struct gtt *g, unsigned vgpu, uint32_t index, uint64_t *pte)
{
    return read_entry(g, vgpu, index, false, pte);
}

int gtt_guest_read(const struct gtt *g, unsigned vgpu, uint32_t index, uint64_t *pte)
{
    return read_entry(g, vgpu, index, true, pte);
}

int gtt_ladder_lookup(const struct gtt *g, unsigned vgpu, uint64_t aper_off, uint64_t *hpa)
{
    const struct gtt_vgpu *v = gtt_vgpu_get(g, vgpu);
    if (!v)
        return GTT_ENOENT;
    if (aper_off < v->low.start || aper_off - v->low.start >= v->low.size)
        return GTT_ERANGE;
    uint32_t k = gtt_page_of(aper_off - v->low.start);
    if (!(v->low_guest[k] & GEN9_GGTT_PTE_PRESENT))
        return GTT_ENOENT;
    *hpa = v->low_host[k] & GEN9_GGTT_PTE_ADDR_MASK;
    return 0;
}

/* ---- guest writes ------------------------------------------------------------------------- */

static int refuse(struct gtt *g, struct gtt_vgpu *v, int rc)
{
    v->st.writes_refused++;
    g->st.writes_refused++;
    return rc;
}

int gtt_guest_write(struct gtt *g, unsigned vgpu, uint32_t index, uint64_t pte)
{
    struct gtt_vgpu *v = g ? gtt_vgpu_get(g, vgpu) : NULL;
    if (!v)
        return GTT_ENOENT;
    uint64_t *hostp, *guestp;
    if (index >= g->n_entries || !gtt_lookup(g, v, index, &hostp, &guestp))
        return refuse(g, v, GTT_ERANGE);
    /* Bits above the address field are reserved on Gen9: a guest setting them is refused
     * rather than having them silently dropped. */
    if (pte & ~(GEN9_GGTT_PTE_ADDR_MASK | GTT_PTE_FLAGS_MASK))
        return refuse(g, v, GTT_EPERM);

    bool present = pte & GEN9_GGTT_PTE_PRESENT;
    uint64_t host = v->scratch_pte, hpa = 0;
    if (present) {
        uint64_t gpa = pte & GEN9_GGTT_PTE_ADDR_MASK;
        if (g->ops.translate(g->ops.ctx, vgpu, gpa, &hpa) != 0)
            return refuse(g, v, GTT_EPERM);
        /* Never trust the translation blindly either: it must be a page address the PTE can
         * hold. */
        if (hpa & ~GEN9_GGTT_PTE_ADDR_MASK)
            return refuse(g, v, GTT_EPERM);
        host = hpa | (pte & GTT_PTE_FLAGS_MASK);
    }
    uint64_t old_guest = *guestp, old_host = *hostp;
    *hostp = host;
    *guestp = pte;
    bool was_present = old_guest & GEN9_GGTT_PTE_PRESENT;
    if (present != was_present) {
        uint32_t s = gtt_slot_of(g, index);
        uint32_t *mapped = s == UINT32_MAX ? &v->low_mapped : &v->slot_mapped[s];
        *mapped = present ? *mapped + 1 : *mapped - 1;
    }
    v->st.writes_ok++;
    if (g->owner[index] == vgpu) {
        gtt_phys_write(g, index, host);
        v->st.writes_forwarded++;
    }

    uint64_t addr = (uint64_t)index << GEN9_GTT_PAGE_SHIFT;
    if (addr >= v->low.start && addr - v->low.start < v->low.size) {
        struct gtt_vfence *f = gtt_fence_covering(v, addr);
        if (f) {
            /* Fenced: the guest's CPU view goes through the pool copy; keep it current. */
            uint32_t pi = gtt_page_of(f->pool_start + (addr - f->guest.start));
            gtt_phys_set(g, pi, host, (uint16_t)vgpu);
            g->st.entries_fence++;
        } else {
            bool was = old_guest & GEN9_GGTT_PTE_PRESENT;
            uint64_t old_hpa = old_host & GEN9_GGTT_PTE_ADDR_MASK;
            if (present && (!was || old_hpa != hpa))
                gtt_emit_ept(g, vgpu, addr, GTT_EPT_MAP_RAM, hpa);
            else if (!present && was)
                gtt_emit_ept(g, vgpu, addr, GTT_EPT_UNMAP, 0);
        }
    }
    return (int)gtt_done(g, 0);
}
