/*
 * Plain display register storage (vdisp_store.h).
 */
#include "vmm/vgpu/i915/display/vdisp_store.h"

#include <stdlib.h>

#define DISPLAY_PAGES ((GEN9_DISPLAY_END - GEN9_DISPLAY_BASE) / VDISP_PAGE_BYTES)

/* The page index of off, or -1. */
static int page_of(uint32_t off)
{
    if (off >= GEN9_DISPLAY_BASE && off < GEN9_DISPLAY_END)
        return (int)((off - GEN9_DISPLAY_BASE) / VDISP_PAGE_BYTES);
    if (off >= GEN9_PCH_DISPLAY_BASE && off < GEN9_PCH_DISPLAY_END)
        return (int)(DISPLAY_PAGES + (off - GEN9_PCH_DISPLAY_BASE) / VDISP_PAGE_BYTES);
    return -1;
}

bool vdisp_store_owns(uint32_t off)
{
    return page_of(off) >= 0;
}

uint32_t vdisp_store_get(const struct vdisp_store *s, uint32_t off)
{
    int p = page_of(off);
    if (p < 0 || !s->page[p])
        return 0;
    return s->page[p][(off % VDISP_PAGE_BYTES) / 4u];
}

bool vdisp_store_set(struct vdisp_store *s, uint32_t off, uint32_t val)
{
    int p = page_of(off);
    if (p < 0)
        return false;
    if (!s->page[p]) {
        if (!val)
            return true; /* reads 0 already */
        if (!(s->page[p] = calloc(VDISP_PAGE_BYTES / 4u, sizeof(uint32_t)))) {
            s->out_of_memory = true;
            return false;
        }
        s->pages++;
    }
    s->page[p][(off % VDISP_PAGE_BYTES) / 4u] = val;
    return true;
}

void vdisp_store_clear(struct vdisp_store *s)
{
    for (unsigned i = 0; i < VDISP_PAGES; i++) {
        free(s->page[i]);
        s->page[i] = NULL;
    }
    s->pages = 0;
    s->out_of_memory = false;
}
