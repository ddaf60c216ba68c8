/*
 * Plain storage for the display's registers: every dword of the display engine
 * (GEN9_DISPLAY_BASE..END) and the south display (GEN9_PCH_DISPLAY_BASE..END) reads back what
 * was last written, as GVT-g's "simple in-memory read-write" registers do.  i915's state
 * checker (intel_modeset_verify_crtc()) reads back timings, M/N values, PLL settings,
 * watermarks and the buffer allocation it wrote; no behaviour is needed for them.
 *
 * 320 KiB of registers, of which a guest touches a few pages: a page is allocated on its first
 * non-zero write (at most 80, 4 KiB each) and every page goes at reset.  Pure.
 */
#ifndef TESSERA_VMM_VGPU_I915_DISPLAY_VDISP_STORE_H
#define TESSERA_VMM_VGPU_I915_DISPLAY_VDISP_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/igpu/gen9_display.h"

#define VDISP_PAGE_BYTES 4096u
#define VDISP_PAGES \
    ((GEN9_DISPLAY_END - GEN9_DISPLAY_BASE + GEN9_PCH_DISPLAY_END - GEN9_PCH_DISPLAY_BASE) / \
     VDISP_PAGE_BYTES)

struct vdisp_store {
    uint32_t *page[VDISP_PAGES];
    unsigned pages;     /* allocated */
    bool out_of_memory; /* a write was dropped: no page could be had */
};

/* Whether off lies in the stored ranges. */
bool vdisp_store_owns(uint32_t off);
uint32_t vdisp_store_get(const struct vdisp_store *s, uint32_t off);
/* false if the value could not be kept (no memory for its page: the register reads 0). */
bool vdisp_store_set(struct vdisp_store *s, uint32_t off, uint32_t val);
/* Every register reads 0 again; the pages are freed. */
void vdisp_store_clear(struct vdisp_store *s);

#endif
