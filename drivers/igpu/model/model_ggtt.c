/*
 * Gen9 model: the GGTT, its translation cache, graphics-memory access for engines and the
 * CPU, fences and the tiled aperture.
 *
 * The GGTT entries live in "physical memory" at cfg.gsm_base (little-endian 64-bit entries,
 * as the hardware reads them from GTT stolen memory), so whatever writes them — the model's
 * igpu_ggtt_write, a GGTT write through the BAR0 window, or the caller poking memory — is the
 * single source of truth. Translations are cached (like the GPU's TLBs) until GFX_FLSH_CNTL.
 *
 * Tiling (Intel PRM for Skylake, Vol 5 "Memory Views", "Tiled Resources": X-Major tile =
 * 512 bytes x 8 rows stored row after row; Y-Major tile = 128 bytes x 32 rows stored as eight
 * 16-byte OWord columns, each 32 rows tall). No bit-6 swizzling on Gen8+ (i915 detects
 * I915_BIT_6_SWIZZLE_NONE for Gen8 and later).
 */
#include <string.h>

#include "drivers/igpu/model/model_internal.h"

/* Written out byte by byte so the compiler merges them into one 64-bit access on a
 * little-endian host (a loop is not merged: 56 instructions per entry, most of the cost of
 * writing a guest's entries under an emulator). */
static void le64_store(uint8_t *p, uint64_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
    p[4] = (uint8_t)(v >> 32);
    p[5] = (uint8_t)(v >> 40);
    p[6] = (uint8_t)(v >> 48);
    p[7] = (uint8_t)(v >> 56);
}

static uint64_t le64_load(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

int model_ggtt_read_pte(struct igpu_model *m, uint32_t index, uint64_t *pte)
{
    uint8_t b[GEN9_GGTT_PTE_SIZE];
    if (index >= m->cfg.ggtt_entries)
        return IGPU_ERANGE;
    if (m->cfg.mem.read(m->cfg.mem.ctx, m->cfg.gsm_base + (uint64_t)index * GEN9_GGTT_PTE_SIZE, b,
                        sizeof(b)))
        return IGPU_EFAULT;
    *pte = le64_load(b);
    return IGPU_OK;
}

int model_ggtt_write_pte(struct igpu_model *m, uint32_t index, uint64_t pte)
{
    uint8_t b[GEN9_GGTT_PTE_SIZE];
    if (index >= m->cfg.ggtt_entries)
        return IGPU_ERANGE;
    le64_store(b, pte);
    if (m->cfg.mem.write(m->cfg.mem.ctx, m->cfg.gsm_base + (uint64_t)index * GEN9_GGTT_PTE_SIZE, b,
                         sizeof(b)))
        return IGPU_EFAULT;
    return IGPU_OK;
}

/* Consecutive entries go to GTT stolen memory in chunks, one memory write each: an entry at a
 * time costs a memory callback per entry. */
#define WRITE_RUN_CHUNK 128u

int model_ggtt_write_run(struct igpu_model *m, uint32_t index, uint32_t n, const uint64_t *ptes)
{
    uint8_t b[WRITE_RUN_CHUNK * GEN9_GGTT_PTE_SIZE];
    if (index >= m->cfg.ggtt_entries || n > m->cfg.ggtt_entries - index)
        return IGPU_ERANGE;
    for (uint32_t done = 0; done < n;) {
        uint32_t k = n - done;
        if (k > WRITE_RUN_CHUNK)
            k = WRITE_RUN_CHUNK;
        for (uint32_t i = 0; i < k; i++)
            le64_store(b + i * GEN9_GGTT_PTE_SIZE, ptes[done + i]);
        if (m->cfg.mem.write(m->cfg.mem.ctx,
                             m->cfg.gsm_base + (uint64_t)(index + done) * GEN9_GGTT_PTE_SIZE, b,
                             (size_t)k * GEN9_GGTT_PTE_SIZE))
            return IGPU_EFAULT;
        done += k;
    }
    return IGPU_OK;
}

void model_tlb_flush(struct igpu_model *m)
{
    memset(m->tlb, 0, sizeof(m->tlb));
}

/* Translate gaddr. Returns IGPU_OK, or a fault reason through *why with an error code. */
static int translate(struct igpu_model *m, uint64_t gaddr, bool cached, uint64_t *pa,
                     enum igpu_fault_reason *why)
{
    uint64_t idx = gaddr >> GEN9_GTT_PAGE_SHIFT;
    uint64_t pte;

    if (idx >= m->cfg.ggtt_entries) {
        *why = IGPU_FAULT_GGTT_RANGE;
        return IGPU_ERANGE;
    }
    if (cached) {
        struct model_tlb_entry *t = &m->tlb[idx % MODEL_TLB_SIZE];
        if (t->tag == (uint32_t)idx + 1u) {
            pte = t->pte;
        } else {
            if (model_ggtt_read_pte(m, (uint32_t)idx, &pte)) {
                *why = IGPU_FAULT_MEMORY;
                return IGPU_EFAULT;
            }
            /* Only present entries are cached: a fault is re-walked next time. */
            if (pte & GEN9_GGTT_PTE_PRESENT) {
                t->tag = (uint32_t)idx + 1u;
                t->pte = pte;
            }
        }
    } else if (model_ggtt_read_pte(m, (uint32_t)idx, &pte)) {
        *why = IGPU_FAULT_MEMORY;
        return IGPU_EFAULT;
    }
    if (!(pte & GEN9_GGTT_PTE_PRESENT)) {
        *why = IGPU_FAULT_GGTT_NOT_PRESENT;
        return IGPU_EFAULT;
    }
    *pa = gen9_ggtt_pte_addr(pte) | (gaddr & GEN9_GTT_PAGE_MASK);
    return IGPU_OK;
}

/* ---- the running context's PPGTT (4-level, 48-bit: gen9_gtt.h) -------------------------- */

/* Walks the PPGTT of en's context for gaddr: the tables are read from physical memory, as the
 * GPU reads them.  Only 4 KiB pages (a 2 MiB or 1 GiB entry is not implemented). */
static int ppgtt_translate(struct igpu_model *m, const struct model_engine *en, uint64_t gaddr,
                           bool write, uint64_t *pa, enum igpu_fault_reason *why)
{
    uint64_t table = en->pml4;

    if (gaddr >> GEN9_PPGTT_ADDR_BITS) {
        *why = IGPU_FAULT_PPGTT_NOT_PRESENT;
        return IGPU_ERANGE;
    }
    for (unsigned level = GEN9_PPGTT_TOP_LEVEL;; level--) {
        uint8_t b[8];
        uint64_t e = 0;
        if (m->cfg.mem.read(m->cfg.mem.ctx, table + 8u * gen9_ppgtt_index(gaddr, level), b, 8)) {
            *why = IGPU_FAULT_MEMORY;
            return IGPU_EFAULT;
        }
        for (unsigned i = 0; i < 8; i++)
            e |= (uint64_t)b[i] << (8 * i);
        if (!(e & GEN9_PPGTT_PRESENT)) {
            *why = IGPU_FAULT_PPGTT_NOT_PRESENT;
            return IGPU_EFAULT;
        }
        if (level > 0 && level < GEN9_PPGTT_TOP_LEVEL && (e & GEN9_PPGTT_PDE_PS)) {
            *why = IGPU_FAULT_PPGTT_NOT_PRESENT; /* huge page: not implemented */
            return IGPU_EFAULT;
        }
        if (level == 0) {
            if (write && !(e & GEN9_PPGTT_RW)) {
                *why = IGPU_FAULT_PPGTT_READ_ONLY;
                return IGPU_EFAULT;
            }
            *pa = (e & GEN9_PPGTT_ADDR_MASK) | (gaddr & GEN9_GTT_PAGE_MASK);
            return IGPU_OK;
        }
        table = e & GEN9_PPGTT_ADDR_MASK;
    }
}

/* Page-by-page physical access, through the GGTT or (ppgtt_en not NULL) that engine's
 * context's PPGTT. On failure *fail_at is the failing graphics address. */
static int gm_rw(struct igpu_model *m, const struct model_engine *ppgtt_en, uint64_t gaddr,
                 void *buf, size_t len, bool write, bool cached, enum igpu_fault_reason *why,
                 uint64_t *fail_at)
{
    uint8_t *p = buf;
    while (len) {
        uint64_t pa;
        size_t chunk = GEN9_GTT_PAGE_SIZE - (size_t)(gaddr & GEN9_GTT_PAGE_MASK);
        int rc, mrc;
        if (chunk > len)
            chunk = len;
        rc = ppgtt_en ? ppgtt_translate(m, ppgtt_en, gaddr, write, &pa, why)
                      : translate(m, gaddr, cached, &pa, why);
        if (rc) {
            *fail_at = gaddr;
            return rc;
        }
        mrc = write ? m->cfg.mem.write(m->cfg.mem.ctx, pa, p, chunk)
                    : m->cfg.mem.read(m->cfg.mem.ctx, pa, p, chunk);
        if (mrc) {
            *why = IGPU_FAULT_MEMORY;
            *fail_at = gaddr;
            return IGPU_EFAULT;
        }
        gaddr += chunk;
        p += chunk;
        len -= chunk;
    }
    return IGPU_OK;
}

bool model_gm_access_in(struct igpu_model *m, struct model_engine *en, bool ppgtt, uint64_t gaddr,
                        void *buf, size_t len, bool write, enum igpu_model_access kind)
{
    enum igpu_fault_reason why = IGPU_FAULT_NONE;
    uint64_t at = gaddr;
    char d[96];

    if (len == 0)
        return true;
    if (ppgtt) {
        if (gm_rw(m, en, gaddr, buf, len, write, false, &why, &at) == IGPU_OK)
            return true;
        snprintf(d, sizeof(d), "PPGTT %s at 0x%" PRIx64, write ? "write" : "read", at);
        model_fault(m, en, why, at, d);
        return false;
    }
    if (m->cfg.gm_check && m->cfg.gm_check(m->cfg.gm_check_ctx, en->id, gaddr, len, kind)) {
        snprintf(d, sizeof(d), "%s of %zu bytes at 0x%" PRIx64 " denied", write ? "write" : "read",
                 len, gaddr);
        model_fault(m, en, IGPU_FAULT_ACCESS_DENIED, gaddr, d);
        return false;
    }
    if (gm_rw(m, NULL, gaddr, buf, len, write, true, &why, &at) == IGPU_OK)
        return true;
    snprintf(d, sizeof(d), "%s at 0x%" PRIx64, write ? "write" : "read", at);
    model_fault(m, en, why, at, d);
    return false;
}

bool model_gm_access(struct igpu_model *m, struct model_engine *en, uint64_t gaddr, void *buf,
                     size_t len, bool write, enum igpu_model_access kind)
{
    /* A blit names no address space: inside a PPGTT batch its surfaces are PPGTT addresses.
     * The ring, context images and status pages are always GGTT. */
    bool ppgtt = model_in_ppgtt(en) && (kind == IGPU_ACCESS_READ || kind == IGPU_ACCESS_WRITE);
    return model_gm_access_in(m, en, ppgtt, gaddr, buf, len, write, kind);
}

bool model_gm_read32(struct igpu_model *m, struct model_engine *en, uint64_t gaddr, uint32_t *val,
                     enum igpu_model_access kind)
{
    uint8_t b[4];
    if (!model_gm_access(m, en, gaddr, b, 4, false, kind))
        return false;
    *val = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return true;
}

bool model_gm_write32(struct igpu_model *m, struct model_engine *en, uint64_t gaddr, uint32_t val,
                      enum igpu_model_access kind)
{
    uint8_t b[4] = { (uint8_t)val, (uint8_t)(val >> 8), (uint8_t)(val >> 16),
                     (uint8_t)(val >> 24) };
    return model_gm_access(m, en, gaddr, b, 4, true, kind);
}

/* ---- CPU side ---------------------------------------------------------------------------- */

int igpu_model_gm_read(struct igpu_model *m, uint64_t gaddr, void *buf, size_t len)
{
    enum igpu_fault_reason why;
    uint64_t at;
    if (!m || (len && !buf))
        return IGPU_EINVAL;
    return gm_rw(m, NULL, gaddr, buf, len, false, false, &why, &at);
}

int igpu_model_gm_write(struct igpu_model *m, uint64_t gaddr, const void *buf, size_t len)
{
    enum igpu_fault_reason why;
    uint64_t at;
    if (!m || (len && !buf))
        return IGPU_EINVAL;
    return gm_rw(m, NULL, gaddr, (void *)(uintptr_t)buf, len, true, false, &why, &at);
}

int igpu_model_gm_translate(struct igpu_model *m, uint64_t gaddr, uint64_t *pa)
{
    enum igpu_fault_reason why;
    if (!m || !pa)
        return IGPU_EINVAL;
    return translate(m, gaddr, false, pa, &why);
}

uint64_t igpu_tiled_offset(enum igpu_tiling t, uint32_t pitch, uint32_t x, uint32_t y,
                           uint32_t *contig)
{
    uint64_t off;
    uint32_t run;

    switch (t) {
    case IGPU_TILING_X:
        /* A row of tiles is pitch / 512 tiles of 4 KiB = pitch * 8 bytes. */
        off = (uint64_t)(y / GEN9_TILE_X_HEIGHT) * pitch * GEN9_TILE_X_HEIGHT +
              (uint64_t)(x / GEN9_TILE_X_WIDTH) * GEN9_TILE_SIZE +
              (uint64_t)(y % GEN9_TILE_X_HEIGHT) * GEN9_TILE_X_WIDTH + x % GEN9_TILE_X_WIDTH;
        run = GEN9_TILE_X_WIDTH - x % GEN9_TILE_X_WIDTH;
        break;
    case IGPU_TILING_Y:
        off = (uint64_t)(y / GEN9_TILE_Y_HEIGHT) * pitch * GEN9_TILE_Y_HEIGHT +
              (uint64_t)(x / GEN9_TILE_Y_WIDTH) * GEN9_TILE_SIZE +
              (uint64_t)((x % GEN9_TILE_Y_WIDTH) / GEN9_TILE_Y_OWORD) *
                  (GEN9_TILE_Y_OWORD * GEN9_TILE_Y_HEIGHT) +
              (uint64_t)(y % GEN9_TILE_Y_HEIGHT) * GEN9_TILE_Y_OWORD + x % GEN9_TILE_Y_OWORD;
        run = GEN9_TILE_Y_OWORD - x % GEN9_TILE_Y_OWORD;
        break;
    default:
        off = (uint64_t)y * pitch + x;
        run = pitch > x ? pitch - x : 0;
        break;
    }
    if (contig)
        *contig = run;
    return off;
}

/* The fence covering graphics address a, or -1. The lowest-numbered valid fence wins when
 * fences overlap (the hardware leaves overlap undefined). */
static int fence_for(const struct igpu_model *m, uint64_t a, struct gen9_fence *out)
{
    for (unsigned i = 0; i < GEN9_FENCE_COUNT; i++) {
        struct gen9_fence f = gen9_fence_decode(m->fence[i]);
        if (f.valid && a >= f.start && a < f.end) {
            *out = f;
            return (int)i;
        }
    }
    return -1;
}

static int aperture_rw(struct igpu_model *m, uint64_t off, void *buf, size_t len, bool write)
{
    uint8_t *p = buf;

    if (!m || (len && !buf))
        return IGPU_EINVAL;
    if (off > m->cfg.aperture_size || len > m->cfg.aperture_size - off)
        return IGPU_ERANGE;
    while (len) {
        struct gen9_fence f;
        uint64_t gaddr;
        size_t chunk;
        enum igpu_fault_reason why;
        uint64_t at;
        int rc;

        if (fence_for(m, off, &f) >= 0) {
            enum igpu_tiling t = f.y_tiled ? IGPU_TILING_Y : IGPU_TILING_X;
            uint64_t rel = off - f.start;
            uint32_t contig;
            /* The hardware's result for a fence that is not whole tile rows is not defined
             * anywhere, and de-tiling it would reach past f.end: refuse the access instead of
             * guessing (i915 never programs such a fence: gen9_fence_shape_ok()). */
            if (!gen9_fence_shape_ok(f.end - f.start, f.pitch, f.y_tiled))
                return IGPU_EUNSUPPORTED;
            gaddr = f.start + igpu_tiled_offset(t, f.pitch, (uint32_t)(rel % f.pitch),
                                                (uint32_t)(rel / f.pitch), &contig);
            chunk = contig;
            if (chunk > f.end - off)
                chunk = (size_t)(f.end - off);
        } else {
            /* Fences start and end on page boundaries: a page is either fenced or not. */
            gaddr = off;
            chunk = GEN9_GTT_PAGE_SIZE - (size_t)(off & GEN9_GTT_PAGE_MASK);
        }
        if (chunk > len)
            chunk = len;
        rc = gm_rw(m, NULL, gaddr, p, chunk, write, true, &why, &at);
        if (rc)
            return rc;
        off += chunk;
        p += chunk;
        len -= chunk;
    }
    return IGPU_OK;
}

int igpu_model_aperture_read(struct igpu_model *m, uint64_t off, void *buf, size_t len)
{
    return aperture_rw(m, off, buf, len, false);
}

int igpu_model_aperture_write(struct igpu_model *m, uint64_t off, const void *buf, size_t len)
{
    return aperture_rw(m, off, (void *)(uintptr_t)buf, len, true);
}
