/* A first-fit range allocator for graphics memory (the guest's low and high ranges) and for
 * the DMA pool of guest RAM.  Small and fixed-size: a kiosk guest holds a few dozen buffers. */
#include "guests/lib/vgpu.h"

#include <string.h>

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

void vgpu_alloc_init(struct vgpu_alloc *a, uint64_t base, uint64_t size)
{
    /* Page-align inwards: a range that does not start on a page loses its partial page. */
    uint64_t start = round_up(base, VGPU_PAGE), end = (base + size) & ~(uint64_t)(VGPU_PAGE - 1);
    memset(a, 0, sizeof *a);
    a->base = start;
    a->size = end > start ? end - start : 0;
}

bool vgpu_alloc_get(struct vgpu_alloc *a, uint64_t size, uint64_t align, uint64_t *out)
{
    if (size == 0 || a->n == VGPU_ALLOC_MAX || (align & (align - 1)))
        return false;
    if (align < VGPU_PAGE)
        align = VGPU_PAGE;
    size = round_up(size, VGPU_PAGE);
    uint64_t end = a->base + a->size, cur = a->base;
    for (unsigned i = 0; i <= a->n; i++) {
        uint64_t gap_end = i < a->n ? a->used[i].start : end;
        uint64_t at = round_up(cur, align);
        if (at >= cur && at <= gap_end && gap_end - at >= size) {
            memmove(&a->used[i + 1], &a->used[i], (a->n - i) * sizeof a->used[0]);
            a->used[i] = (struct vgpu_extent){ at, size };
            a->n++;
            *out = at;
            return true;
        }
        if (i < a->n)
            cur = a->used[i].start + a->used[i].size;
    }
    return false;
}

bool vgpu_alloc_put(struct vgpu_alloc *a, uint64_t start)
{
    for (unsigned i = 0; i < a->n; i++) {
        if (a->used[i].start == start) {
            memmove(&a->used[i], &a->used[i + 1], (a->n - i - 1) * sizeof a->used[0]);
            a->n--;
            return true;
        }
    }
    return false;
}

uint64_t vgpu_alloc_free_bytes(const struct vgpu_alloc *a)
{
    uint64_t used = 0;
    for (unsigned i = 0; i < a->n; i++)
        used += a->used[i].size;
    return a->size - used;
}
