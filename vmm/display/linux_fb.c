/* The Linux guest's linear framebuffer (linux_fb.h). */
#include "vmm/display/linux_fb.h"

#include "arch/x86/page_alloc.h"
#include "arch/x86/vmx.h"
#include "boot/linux/linux_layout.h"
#include "vmm/display/wall.h"
#include "vmm/platform.h"
#include "vmm/vm.h"

#include <stdio.h>
#include <string.h>

bool lfb_create(struct vm *vm, struct lfb *l, uint32_t width, uint32_t height)
{
    uint64_t stride = (uint64_t)width * LFB_BYTES_PER_PIXEL;
    uint64_t bytes = (stride * height + VLFB_SIZE_UNIT - 1) / VLFB_SIZE_UNIT * VLFB_SIZE_UNIT;
    if (width == 0 || height == 0 || width > LFB_MAX_WIDTH || height > UINT16_MAX ||
        bytes > LINUX_FB_WINDOW) {
        snprintf(vm->reason, sizeof vm->reason,
                 "a %ux%u framebuffer does not fit its %llu MiB window at %#llx", width, height,
                 (unsigned long long)(LINUX_FB_WINDOW >> 20), (unsigned long long)LINUX_FB_GPA);
        return false;
    }
    uint64_t hpa = page_alloc(&platform.pages, bytes / PAGE_SIZE, 1);
    if (!hpa) {
        snprintf(vm->reason, sizeof vm->reason, "no %llu KiB of memory for its %ux%u framebuffer",
                 (unsigned long long)(bytes >> 10), width, height);
        return false;
    }
    if (ept_map(&vm->ept, LINUX_FB_GPA, hpa, bytes, EPT_PERM_R | EPT_PERM_W, EPT_MT_WB) != 0) {
        page_free(&platform.pages, hpa, bytes / PAGE_SIZE);
        snprintf(vm->reason, sizeof vm->reason, "no memory for the EPT tables of its framebuffer");
        return false;
    }
    l->hpa = hpa;
    l->fb = (struct zp_framebuffer){ LINUX_FB_GPA, width, height, (uint32_t)stride, bytes };
    return true;
}

void lfb_clear(const struct lfb *l)
{
    if (l->hpa)
        memset((void *)(uintptr_t)l->hpa, 0, l->fb.bytes);
}

static bool lfb_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    const struct lfb *l = ctx;
    if (off > l->fb.bytes || len > l->fb.bytes - off)
        return false;
    memcpy(buf, (const uint8_t *)(uintptr_t)l->hpa + off, len);
    return true;
}

bool lfb_wall_source(unsigned vm_id, struct wall_source *out)
{
    const struct vm *vm = vm_get(vm_id);
    struct lfb *l = vm ? vm->lfb : NULL;
    if (!l || vm->state != VM_RUNNING || !l->hpa)
        return false;
    *out = (struct wall_source){ .enabled = true,
                                 .width = l->fb.width,
                                 .height = l->fb.height,
                                 .stride_bytes = l->fb.stride,
                                 .read = lfb_read,
                                 .ctx = l };
    return true;
}
