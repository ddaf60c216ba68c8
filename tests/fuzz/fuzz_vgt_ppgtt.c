/* Fuzzes the PPGTT shadow with a hostile guest.  The input drives a guest that announces and
 * destroys PPGTTs at arbitrary pages, writes arbitrary entries (any address, in or outside its
 * RAM, any flag bits: huge pages, non-present, read-only) into arbitrary pages, whole tables or
 * half entries, and asks for translations.  After every operation:
 *   - every shadow table reachable from a live root holds only present entries pointing at
 *     another shadow table (above level 0) or at the guest's own RAM or the vGPU's read-only
 *     scratch page (level 0): the GPU can never reach another guest's memory;
 *   - every successful translation lands in the guest's RAM (or reads the scratch page);
 *   - the write-protected pages are exactly the pages holding shadowed tables.
 * At the end the shadow is destroyed: every host page is given back and every protection
 * lifted (the fixture aborts on a double protect or a foreign free). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/test_vgt_ppgtt_fixture.h"
#include "tests/fuzz/fuzz_cursor.h"
#include "tests/fuzz/fuzz_oracle.h"
#include "vmm/vgpu/i915/vgt/vgt_ppgtt_internal.h"

#define ACTIVE_PAGES 48u /* where the fuzzer puts tables: overlaps */
#define MAX_LIVE     8u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct px px;
static uint8_t seen[PX_HOST_PAGES];
static bool table_page[PX_RAM_PAGES];

/* An entry's verdict depends on its value and level alone (and, above level 0, on the table
 * it names, walked once per level anyway: `seen`), so a run of equal entries -- i915 fills
 * whole tables with one scratch entry -- is checked at its first entry only. */
FUZZ_ORACLE_PART static void walk(uint64_t hpa, unsigned level)
{
    const uint64_t *t = px_host(&px, hpa);
    uint64_t i = (hpa - PX_SHADOW_BASE) / 4096u;

    if (!t)
        abort(); /* a directory entry to a non-shadow page */
    if (seen[i] & (1u << level))
        return;
    seen[i] |= (uint8_t)(1u << level);
    for (unsigned k = 0; k < GEN9_PPGTT_ENTRIES; k++) {
        uint64_t e = t[k], a = gen9_ppgtt_entry_addr(e);
        if (k > 0 && e == t[k - 1])
            continue;
        if (!(e & GEN9_PPGTT_PRESENT))
            abort(); /* the GPU would fault */
        if (level == 0) {
            bool ram = a >= PX_HPA_BASE && a < PX_HPA_BASE + PX_RAM_BYTES;
            if (!ram && a != PX_SCRATCH_HPA)
                abort();
            if (a == PX_SCRATCH_HPA && (e & GEN9_PPGTT_RW))
                abort();
        } else {
            walk(a, level - 1u);
        }
    }
}

FUZZ_ORACLE static void check(uint64_t *roots, unsigned n)
{
    memset(seen, 0, sizeof seen);
    for (unsigned r = 0; r < n; r++) {
        uint64_t shadow;
        if (vgt_ppgtt_root_find(px.p, roots[r], &shadow) != VGT_PPGTT_OK)
            abort();
        walk(shadow, GEN9_PPGTT_TOP_LEVEL);
    }
    /* The write-protected pages are exactly the pages vgt_ppgtt_is_table() says hold a table.
     * Asking it for every page of RAM after every operation was a fifth of the run; instead
     * the shadow's records are listed from its hash and each one's page asked once.  Same
     * answer: a page P is a table exactly when the lookup finds a record with gpa == P, which
     * is then on some chain of the hash (so listed), and a listed record counts only when the
     * lookup finds its page. */
    memset(table_page, 0, sizeof table_page);
    for (unsigned b = 0; b < PT_HASH_BUCKETS; b++)
        for (const struct pt *t = px.p->hash[b]; t; t = t->next)
            if (!(t->gpa & 4095u) && t->gpa < PX_RAM_BYTES && vgt_ppgtt_is_table(px.p, t->gpa))
                table_page[t->gpa / 4096u] = true;
    for (unsigned pg = 0; pg < PX_RAM_PAGES; pg++)
        if (px.protected_[pg] != table_page[pg])
            abort();
}

/* An entry value: mostly plausible addresses (active pages), sometimes outside RAM, with
 * flag bits from the input. */
static uint64_t entry(struct cursor *c)
{
    uint64_t sel = take(c, 1), flags = take(c, 2), addr;
    if (sel < 200)
        addr = 4096ull * (sel % ACTIVE_PAGES);
    else if (sel < 230)
        addr = PX_RAM_BYTES + 4096ull * (sel - 200);
    else
        addr = (take(c, 6) << 12) & GEN9_PPGTT_ADDR_MASK;
    return addr | (flags & 0x8FFFu) | (sel & 1 ? GEN9_PPGTT_PRESENT : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cursor c = { data, size };
    struct vgt_ppgtt_config cfg;
    uint64_t live[MAX_LIVE];
    unsigned n_live = 0;

    /* Only the active pages are ever written: clearing them and the bookkeeping is enough. */
    memset(px.ram, 0, ACTIVE_PAGES * 4096u);
    memset((char *)&px + offsetof(struct px, protected_), 0,
           sizeof px - offsetof(struct px, protected_));
    cfg = px_config(&px, (unsigned)(take(&c, 1) % 64u) + 4u);
    if (vgt_ppgtt_create(&cfg, &px.p) != VGT_PPGTT_OK)
        abort();
    while (c.n) {
        unsigned op = (unsigned)take(&c, 1) % 6u;
        uint64_t page = 4096ull * (take(&c, 1) % ACTIVE_PAGES);
        switch (op) {
        case 0: /* g2v create */
            if (n_live < MAX_LIVE && vgt_ppgtt_root_create(px.p, page, NULL, NULL) == VGT_PPGTT_OK)
                live[n_live++] = page;
            break;
        case 1: /* g2v destroy of a live root */
            if (n_live) {
                unsigned k = (unsigned)(page / 4096u) % n_live;
                if (vgt_ppgtt_root_destroy(px.p, live[k]) != VGT_PPGTT_OK)
                    abort();
                live[k] = live[--n_live];
            }
            break;
        case 2: { /* one entry, whole or half */
            uint64_t off = 8u * (take(&c, 2) % 512u), v = entry(&c);
            if (take(&c, 1) & 1)
                px_store(&px, page + off + 4, (uint32_t[]){ (uint32_t)(v >> 32) }, 4);
            else
                px_store64(&px, page + off, v);
            break;
        }
        case 3: { /* a whole table of one entry (i915's fill) */
            uint64_t v = entry(&c);
            for (unsigned i = 0; i < 512; i++)
                px_store64(&px, page + 8u * i, v);
            break;
        }
        case 4: { /* translate */
            uint64_t gfx = take(&c, 6), hpa;
            bool write = take(&c, 1) & 1;
            if (n_live && vgt_ppgtt_translate(px.p, live[gfx % n_live], gfx, write, &hpa, NULL,
                                              NULL) == VGT_PPGTT_OK) {
                bool ram = hpa >= PX_HPA_BASE && hpa < PX_HPA_BASE + PX_RAM_BYTES;
                bool scratch = hpa >= PX_SCRATCH_HPA && hpa < PX_SCRATCH_HPA + 4096u;
                if (!ram && !(scratch && !write))
                    abort();
            }
            break;
        }
        default: /* a context naming a page as its PML4 */
            vgt_ppgtt_root_find(px.p, page, NULL);
            break;
        }
        check(live, n_live);
    }
    vgt_ppgtt_destroy(px.p);
    px.p = NULL;
    if (px.host_live != 0)
        abort();
    for (unsigned pg = 0; pg < PX_RAM_PAGES; pg++)
        if (px.protected_[pg])
            abort();
    return 0;
}
