/* Moving a window's EPT translations (ept_window.h). */
#include "vmm/io/ept_window.h"

#include "vmm/io/io_bus.h"

#include <stddef.h>

int ept_window_move(struct ept *e, const struct ept_window *w, uint64_t old_base, uint64_t new_base)
{
    int first_err = 0;
    if (old_base != IO_UNPLACED) {
        int rc = ept_unmap(e, old_base, w->size);
        if (rc)
            first_err = rc;
    }
    if (new_base == IO_UNPLACED)
        return first_err;
    for (uint64_t off = 0; off < w->map_size; off += EPT_PAGE_4K) {
        uint64_t hpa;
        if (!w->page(w->ctx, off, &hpa))
            continue;
        int rc = ept_map(e, new_base + w->first + off, hpa, EPT_PAGE_4K, w->perms, w->memtype);
        if (rc && !first_err)
            first_err = rc;
    }
    return first_err;
}

uint64_t ept_window_mapped(const struct ept *e, const struct ept_window *w, uint64_t base)
{
    uint64_t n = 0;
    for (uint64_t off = 0; base != IO_UNPLACED && off < w->size; off += EPT_PAGE_4K)
        n += ept_walk(e, base + off, NULL, NULL, NULL, NULL) == 0;
    return n;
}
