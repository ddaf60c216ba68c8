/* EPT paging structures (see ept.h for the SDM references).
 *
 * Levels are numbered by how many levels lie below: 3 = PML4, 2 = PDPT, 1 = PD, 0 = PT.
 * Changes are all-or-nothing: a dry pass counts the table pages an operation may need, those
 * pages are allocated up front into a small pool, and only then are entries written — so an
 * allocation failure leaves every translation, and the table count, as it was. */
#include "arch/x86/vmx/pure/ept.h"

#include <stddef.h>

#define LEVEL_SHIFT(level) (12u + 9u * (unsigned)(level))
#define LEVEL_SPAN(level)  (1ULL << LEVEL_SHIFT(level))
#define INDEX(gpa, level)  ((unsigned)(((gpa) >> LEVEL_SHIFT(level)) & (EPT_ENTRIES - 1)))
#define LEVEL_PML4         3
#define LEVEL_PD           1
#define LEVEL_PT           0

/* Non-leaf entries allow everything: permissions are decided at the leaves alone. */
#define EPT_TABLE_PERMS EPT_ENTRY_PERM_MASK

static bool present(uint64_t ent)
{
    return (ent & EPT_ENTRY_PERM_MASK) != 0;
}
static bool is_large(uint64_t ent)
{
    return (ent & EPT_ENTRY_LARGE) != 0;
}

static uint64_t *table_at(const struct ept *e, uint64_t phys)
{
    return (uint64_t *)e->ops.phys_to_virt(e->ops.ctx, phys);
}

static uint64_t *child_of(const struct ept *e, uint64_t ent)
{
    return table_at(e, ent & EPT_ENTRY_ADDR_MASK);
}

/* Entries may be walked by the processor while we change them (another vCPU of the same guest,
 * later): every entry is written with one 64-bit store, and a new table is filled before the
 * entry that points to it. */
static void set_entry(uint64_t *slot, uint64_t val)
{
    *(volatile uint64_t *)slot = val;
}

const char *ept_strerror(int err)
{
    switch (err) {
    case 0:
        return "ok";
    case EPT_EINVAL:
        return "invalid argument";
    case EPT_ENOMEM:
        return "out of memory for EPT tables";
    case EPT_ENOENT:
        return "not mapped";
    default:
        return "unknown EPT error";
    }
}

uint64_t ept_cap_missing(uint64_t ept_vpid_cap)
{
    return EPT_CAP_NEEDED & ~ept_vpid_cap;
}

/* ---- the page pool: pages linked through their first qword ---- */

struct pool {
    uint64_t head;
    unsigned count;
};

static void pool_release(struct ept *e, struct pool *p)
{
    while (p->head) {
        uint64_t phys = p->head;
        uint64_t *page = table_at(e, phys);
        p->head = page[0];
        page[0] = 0;
        e->ops.free_page(e->ops.ctx, phys);
    }
    p->count = 0;
}

static int pool_fill(struct ept *e, struct pool *p, unsigned n)
{
    p->head = 0;
    p->count = 0;
    while (p->count < n) {
        uint64_t phys = e->ops.alloc_page(e->ops.ctx);
        if (phys == 0 || (phys & (EPT_PAGE_4K - 1)) || phys >= EPT_HPA_LIMIT) {
            /* A misaligned or out-of-range page would corrupt entries: treat it as failure
             * (and give it back if it looked like a page at all). */
            if (phys)
                e->ops.free_page(e->ops.ctx, phys);
            pool_release(e, p);
            return EPT_ENOMEM;
        }
        table_at(e, phys)[0] = p->head;
        p->head = phys;
        p->count++;
    }
    return 0;
}

/* Takes a zeroed page from the pool (the dry pass guarantees there is one). */
static uint64_t pool_take(struct ept *e, struct pool *p)
{
    uint64_t phys = p->head;
    if (!phys)
        return 0;
    uint64_t *page = table_at(e, phys);
    p->head = page[0];
    page[0] = 0;
    p->count--;
    e->tables++;
    return phys;
}

static void free_table(struct ept *e, uint64_t phys)
{
    e->ops.free_page(e->ops.ctx, phys);
    e->tables--;
}

/* ---- argument checks ---- */

static bool ready(const struct ept *e)
{
    return e && e->pml4 && e->ops.alloc_page && e->ops.free_page && e->ops.phys_to_virt;
}

static bool range_ok(uint64_t gpa, uint64_t size)
{
    return size != 0 && ((gpa | size) & (EPT_PAGE_4K - 1)) == 0 && size <= EPT_GPA_LIMIT &&
           gpa <= EPT_GPA_LIMIT - size;
}

/* No permission at all would be "not present"; write without read is an EPT misconfiguration
 * (§29.3.3.1). */
static bool perms_ok(unsigned perms)
{
    if (perms == 0 || (perms & ~EPT_PERM_RWX))
        return false;
    return !((perms & EPT_PERM_W) && !(perms & EPT_PERM_R));
}

static bool memtype_ok(unsigned mt)
{
    return mt == EPT_MT_UC || mt == EPT_MT_WC || mt == EPT_MT_WT || mt == EPT_MT_WP ||
           mt == EPT_MT_WB;
}

/* ---- init / destroy / eptp ---- */

int ept_init(struct ept *e, const struct ept_ops *ops)
{
    if (!e || !ops || !ops->alloc_page || !ops->free_page || !ops->phys_to_virt)
        return EPT_EINVAL;
    e->ops = *ops;
    e->tables = 0;
    e->pml4 = 0;
    uint64_t phys = ops->alloc_page(ops->ctx);
    if (phys == 0)
        return EPT_ENOMEM;
    if ((phys & (EPT_PAGE_4K - 1)) || phys >= EPT_HPA_LIMIT) {
        ops->free_page(ops->ctx, phys);
        return EPT_ENOMEM;
    }
    e->pml4 = phys;
    e->tables = 1;
    return 0;
}

static void free_tree(struct ept *e, uint64_t phys, int level)
{
    if (level > LEVEL_PT) {
        uint64_t *t = table_at(e, phys);
        for (unsigned i = 0; i < EPT_ENTRIES; i++)
            if (present(t[i]) && !(level <= 2 && is_large(t[i])))
                free_tree(e, t[i] & EPT_ENTRY_ADDR_MASK, level - 1);
    }
    free_table(e, phys);
}

void ept_destroy(struct ept *e)
{
    if (!e || !e->pml4)
        return;
    free_tree(e, e->pml4, LEVEL_PML4);
    e->pml4 = 0;
}

uint64_t ept_eptp(const struct ept *e)
{
    if (!e || !e->pml4)
        return 0;
    return (e->pml4 & EPTP_ADDR_MASK) | ((uint64_t)(EPT_LEVELS - 1) << EPTP_WALK_LENGTH_SHIFT) |
           ((uint64_t)EPT_MT_WB << EPTP_MEMTYPE_SHIFT);
}

/* ---- walk ---- */

int ept_walk(const struct ept *e, uint64_t gpa, uint64_t *hpa, unsigned *perms, unsigned *memtype,
             uint64_t *page_size)
{
    if (!e || !e->pml4 || !e->ops.phys_to_virt || gpa >= EPT_GPA_LIMIT)
        return EPT_EINVAL;
    const uint64_t *t = table_at(e, e->pml4);
    for (int level = LEVEL_PML4; level >= LEVEL_PT; level--) {
        uint64_t ent = t[INDEX(gpa, level)];
        if (!present(ent))
            return EPT_ENOENT;
        /* bit 7 means "page" in a PDPTE (1 GiB) or PDE (2 MiB); Tessera makes only the latter */
        if (level == LEVEL_PT || (level <= 2 && is_large(ent))) {
            uint64_t span = LEVEL_SPAN(level);
            if (hpa)
                *hpa = (ent & EPT_ENTRY_ADDR_MASK & ~(span - 1)) | (gpa & (span - 1));
            if (perms)
                *perms = (unsigned)(ent & EPT_ENTRY_PERM_MASK);
            if (memtype)
                *memtype = (unsigned)((ent & EPT_ENTRY_MEMTYPE_MASK) >> EPT_ENTRY_MEMTYPE_SHIFT);
            if (page_size)
                *page_size = span;
            return 0;
        }
        t = child_of(e, ent);
    }
    return EPT_ENOENT; /* not reached */
}

/* ---- shared pieces of map / unmap / protect ---- */

/* Replaces the 2 MiB leaf in *pde by a page table of 512 equivalent 4 KiB entries. */
static int split_large(struct ept *e, uint64_t *pde, struct pool *p)
{
    uint64_t pt_phys = pool_take(e, p);
    if (!pt_phys)
        return EPT_ENOMEM;
    uint64_t *pt = table_at(e, pt_phys);
    uint64_t base = *pde & EPT_ENTRY_ADDR_2M_MASK;
    uint64_t attrs = *pde & (EPT_ENTRY_PERM_MASK | EPT_ENTRY_MEMTYPE_MASK | EPT_ENTRY_IGNORE_PAT);
    for (unsigned i = 0; i < EPT_ENTRIES; i++)
        set_entry(&pt[i], (base + (uint64_t)i * EPT_PAGE_4K) | attrs);
    set_entry(pde, pt_phys | EPT_TABLE_PERMS);
    return 0;
}

/* The table below *slot, creating an empty one from the pool when absent. */
static uint64_t *ensure_table(struct ept *e, uint64_t *slot, struct pool *p)
{
    if (present(*slot))
        return child_of(e, *slot);
    uint64_t phys = pool_take(e, p);
    if (!phys)
        return NULL;
    set_entry(slot, phys | EPT_TABLE_PERMS);
    return table_at(e, phys);
}

/* The PD covering gpa, or NULL when the PML4E or PDPTE is absent. */
static uint64_t *find_pd(const struct ept *e, uint64_t gpa)
{
    uint64_t *pml4 = table_at(e, e->pml4);
    uint64_t ent = pml4[INDEX(gpa, 3)];
    if (!present(ent))
        return NULL;
    uint64_t *pdpt = child_of(e, ent);
    ent = pdpt[INDEX(gpa, 2)];
    if (!present(ent) || is_large(ent))
        return NULL;
    return child_of(e, ent);
}

/* A 2 MiB slot that [gpa, end) covers only partly, and that holds a large page, must be split
 * by unmap/protect: one table page each.  Only the first and last slot can be partial. */
static unsigned partial_splits(const struct ept *e, uint64_t gpa, uint64_t end)
{
    const uint64_t slots[2] = { gpa & ~(EPT_PAGE_2M - 1), (end - 1) & ~(EPT_PAGE_2M - 1) };
    unsigned n = 0;
    for (unsigned k = 0; k < 2; k++) {
        uint64_t s = slots[k];
        if (k == 1 && s == slots[0])
            break;
        if (s >= gpa && s + EPT_PAGE_2M <= end)
            continue; /* fully covered: handled as a whole */
        uint64_t *pd = find_pd(e, s);
        if (pd && present(pd[INDEX(s, LEVEL_PD)]) && is_large(pd[INDEX(s, LEVEL_PD)]))
            n++;
    }
    return n;
}

static bool table_empty(const uint64_t *t)
{
    for (unsigned i = 0; i < EPT_ENTRIES; i++)
        if (t[i])
            return false;
    return true;
}

/* Frees tables under t (a table at `level` whose first GPA is tbase) that became empty within
 * [lo, hi] (inclusive). */
static void prune(struct ept *e, uint64_t *t, int level, uint64_t tbase, uint64_t lo, uint64_t hi)
{
    unsigned shift = LEVEL_SHIFT(level);
    uint64_t last_gpa = tbase + (LEVEL_SPAN(level) << 9) - 1;
    unsigned first = lo <= tbase ? 0 : (unsigned)((lo - tbase) >> shift);
    unsigned last = hi >= last_gpa ? EPT_ENTRIES - 1 : (unsigned)((hi - tbase) >> shift);
    for (unsigned i = first; i <= last; i++) {
        uint64_t ent = t[i];
        if (!present(ent) || is_large(ent))
            continue;
        uint64_t *child = child_of(e, ent);
        if (level - 1 > LEVEL_PT)
            prune(e, child, level - 1, tbase + ((uint64_t)i << shift), lo, hi);
        if (table_empty(child)) {
            set_entry(&t[i], 0);
            free_table(e, ent & EPT_ENTRY_ADDR_MASK);
        }
    }
}

/* ---- map ---- */

static bool use_large(uint64_t gpa, uint64_t hpa, uint64_t remaining)
{
    return ((gpa | hpa) & (EPT_PAGE_2M - 1)) == 0 && remaining >= EPT_PAGE_2M;
}

/* Dry pass: how many table pages mapping [gpa, gpa+size) may take.  Tables that do not exist
 * yet are counted once per region they would cover (the range is walked in order, so
 * remembering the last region at each level is enough). */
static uint64_t count_map_pages(const struct ept *e, uint64_t gpa, uint64_t hpa, uint64_t size)
{
    const uint64_t none = ~0ULL;
    uint64_t last_pdpt = none, last_pd = none, last_pt = none, n = 0;
    const uint64_t *pml4 = table_at(e, e->pml4);

    for (uint64_t off = 0; off < size;) {
        uint64_t g = gpa + off;
        bool large = use_large(g, hpa + off, size - off);
        bool need_pdpt = false, need_pd = false, need_pt = false;
        uint64_t ent = pml4[INDEX(g, 3)];
        if (!present(ent)) {
            need_pdpt = need_pd = true;
        } else {
            const uint64_t *pdpt = child_of(e, ent);
            ent = pdpt[INDEX(g, 2)];
            if (!present(ent)) {
                need_pd = true;
            } else {
                const uint64_t *pd = child_of(e, ent);
                ent = pd[INDEX(g, LEVEL_PD)];
                need_pt = !present(ent) || is_large(ent);
            }
        }
        if (need_pd)
            need_pt = true;
        if (need_pdpt && (g >> LEVEL_SHIFT(3)) != last_pdpt) {
            last_pdpt = g >> LEVEL_SHIFT(3);
            n++;
        }
        if (need_pd && (g >> LEVEL_SHIFT(2)) != last_pd) {
            last_pd = g >> LEVEL_SHIFT(2);
            n++;
        }
        if (!large && need_pt && (g >> LEVEL_SHIFT(1)) != last_pt) {
            last_pt = g >> LEVEL_SHIFT(1);
            n++;
        }
        off += large ? EPT_PAGE_2M : EPT_PAGE_4K;
    }
    return n;
}

int ept_map(struct ept *e, uint64_t gpa, uint64_t hpa, uint64_t size, unsigned perms,
            unsigned memtype)
{
    if (!ready(e) || !range_ok(gpa, size) || (hpa & (EPT_PAGE_4K - 1)) || hpa >= EPT_HPA_LIMIT ||
        size > EPT_HPA_LIMIT - hpa || !perms_ok(perms) || !memtype_ok(memtype))
        return EPT_EINVAL;

    uint64_t need = count_map_pages(e, gpa, hpa, size);
    if (need > ~0u)
        return EPT_ENOMEM;
    struct pool p;
    int rc = pool_fill(e, &p, (unsigned)need);
    if (rc)
        return rc;

    uint64_t attrs = (uint64_t)perms | ((uint64_t)memtype << EPT_ENTRY_MEMTYPE_SHIFT);
    uint64_t *pml4 = table_at(e, e->pml4);
    for (uint64_t off = 0; off < size;) {
        uint64_t g = gpa + off, h = hpa + off;
        bool large = use_large(g, h, size - off);
        uint64_t *pdpt = ensure_table(e, &pml4[INDEX(g, 3)], &p);
        uint64_t *pd = pdpt ? ensure_table(e, &pdpt[INDEX(g, 2)], &p) : NULL;
        if (!pd) {
            rc = EPT_ENOMEM; /* the dry pass undercounted: a bug, but never a crash */
            break;
        }
        uint64_t *pde = &pd[INDEX(g, LEVEL_PD)];
        if (large) {
            uint64_t old = *pde;
            set_entry(pde, h | attrs | EPT_ENTRY_LARGE);
            if (present(old) && !is_large(old))
                free_table(e, old & EPT_ENTRY_ADDR_MASK);
            off += EPT_PAGE_2M;
            continue;
        }
        if (present(*pde) && is_large(*pde)) {
            rc = split_large(e, pde, &p);
            if (rc)
                break;
        }
        uint64_t *pt = ensure_table(e, pde, &p);
        if (!pt) {
            rc = EPT_ENOMEM;
            break;
        }
        set_entry(&pt[INDEX(g, LEVEL_PT)], h | attrs);
        off += EPT_PAGE_4K;
    }
    pool_release(e, &p);
    return rc;
}

/* ---- unmap ---- */

int ept_unmap(struct ept *e, uint64_t gpa, uint64_t size)
{
    if (!ready(e) || !range_ok(gpa, size))
        return EPT_EINVAL;
    uint64_t end = gpa + size;
    struct pool p;
    int rc = pool_fill(e, &p, partial_splits(e, gpa, end));
    if (rc)
        return rc;

    uint64_t *pml4 = table_at(e, e->pml4);
    for (uint64_t g = gpa; g < end;) {
        uint64_t ent = pml4[INDEX(g, 3)];
        if (!present(ent)) { /* nothing below: skip to the next PML4 slot */
            g = (g | (LEVEL_SPAN(3) - 1)) + 1;
            continue;
        }
        uint64_t *pdpt = child_of(e, ent);
        ent = pdpt[INDEX(g, 2)];
        if (!present(ent)) {
            g = (g | (LEVEL_SPAN(2) - 1)) + 1;
            continue;
        }
        uint64_t *pd = child_of(e, ent);
        uint64_t *pde = &pd[INDEX(g, LEVEL_PD)];
        if (!present(*pde)) {
            g = (g | (EPT_PAGE_2M - 1)) + 1;
            continue;
        }
        if ((g & (EPT_PAGE_2M - 1)) == 0 && end - g >= EPT_PAGE_2M) {
            uint64_t old = *pde;
            set_entry(pde, 0);
            if (!is_large(old))
                free_table(e, old & EPT_ENTRY_ADDR_MASK);
            g += EPT_PAGE_2M;
            continue;
        }
        if (is_large(*pde)) {
            rc = split_large(e, pde, &p);
            if (rc)
                break;
        }
        uint64_t *pt = child_of(e, *pde);
        set_entry(&pt[INDEX(g, LEVEL_PT)], 0);
        g += EPT_PAGE_4K;
    }
    pool_release(e, &p);
    prune(e, pml4, LEVEL_PML4, 0, gpa, end - 1);
    return rc;
}

/* ---- protect ---- */

int ept_protect(struct ept *e, uint64_t gpa, uint64_t size, unsigned perms)
{
    if (!ready(e) || !range_ok(gpa, size) || !perms_ok(perms))
        return EPT_EINVAL;
    uint64_t end = gpa + size;

    /* Everything must be mapped before anything changes. */
    for (uint64_t g = gpa; g < end;) {
        uint64_t ps;
        if (ept_walk(e, g, NULL, NULL, NULL, &ps) != 0)
            return EPT_ENOENT;
        g = (g & ~(ps - 1)) + ps;
    }

    struct pool p;
    int rc = pool_fill(e, &p, partial_splits(e, gpa, end));
    if (rc)
        return rc;

    for (uint64_t g = gpa; g < end;) {
        uint64_t *pd = find_pd(e, g);
        uint64_t *pde = &pd[INDEX(g, LEVEL_PD)];
        bool whole = (g & (EPT_PAGE_2M - 1)) == 0 && end - g >= EPT_PAGE_2M;
        if (whole && is_large(*pde)) {
            set_entry(pde, (*pde & ~EPT_ENTRY_PERM_MASK) | perms);
            g += EPT_PAGE_2M;
            continue;
        }
        if (is_large(*pde)) {
            rc = split_large(e, pde, &p);
            if (rc)
                break;
        }
        uint64_t *pt = child_of(e, *pde);
        unsigned first = INDEX(g, LEVEL_PT);
        unsigned count = whole ? EPT_ENTRIES : 1;
        for (unsigned i = first; i < first + count; i++)
            set_entry(&pt[i], (pt[i] & ~EPT_ENTRY_PERM_MASK) | perms);
        g += (uint64_t)count * EPT_PAGE_4K;
    }
    pool_release(e, &p);
    return rc;
}
