/* A linear framebuffer for a Linux guest: host pages EPT-mapped at LINUX_FB_GPA, described to
 * the kernel by a VLFB screen_info (boot/linux/zero_page.h) so its built-in vesafb and fbcon use
 * it, and shown by the kiosk wall on the guest's tile like a vGPU plane (vmm/display/wall.c).
 * XRGB8888, the wall's own format; e820 marks it reserved, outside RAM. */
#ifndef TESSERA_VMM_GPU_LINUX_FB_H
#define TESSERA_VMM_GPU_LINUX_FB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/linux/zero_page.h"

struct vm;
struct wall_source;

#define LFB_BYTES_PER_PIXEL 4u
#define LFB_MAX_WIDTH       16383u /* lfb_linelength is 16 bits */

struct lfb {
    uint64_t hpa;             /* host pages behind it, 0 if none */
    struct zp_framebuffer fb; /* as the guest sees it */
};

/* Allocates width x height pixels (rounded up to VLFB_SIZE_UNIT) and maps them into the guest
 * at LINUX_FB_GPA, readable and writable.  False with the reason in vm->reason. */
bool lfb_create(struct vm *vm, struct lfb *l, uint32_t width, uint32_t height);
/* Black, as a monitor shows before the kernel draws. */
void lfb_clear(const struct lfb *l);
/* The wall's source for guest `vm_id` if it is a running Linux guest with a framebuffer. */
bool lfb_wall_source(unsigned vm_id, struct wall_source *out);

#endif
