/* Placing a Linux kernel and its initrd in guest RAM (boot.rst). */
#include "boot/linux/linux_place.h"

#include "boot/linux/linux_layout.h"
#include "boot/linux/loader_error.h"

#include <string.h>

#define MIB (1ULL << 20)

static uint64_t page_up(uint64_t v)
{
    return (v + LINUX_PAGE_BYTES - 1) & ~(uint64_t)(LINUX_PAGE_BYTES - 1);
}

/* MiB up to the end of [start, start + bytes), rounded up; saturates instead of wrapping. */
static uint64_t end_mib(uint64_t start, uint64_t bytes)
{
    if (start > UINT64_MAX - bytes - MIB)
        return UINT64_MAX / MIB;
    return (start + bytes + MIB - 1) / MIB;
}

int linux_place(const struct bzimage_info *bi, uint64_t ram_bytes, uint64_t initrd_bytes,
                size_t cmdline_len, struct linux_placement *out, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (ram_bytes > LINUX_FB_GPA)
        return loader_error(
            LINUX_PLACE_ERAM, err, errlen,
            "%llu MiB of RAM: a Linux guest's RAM must end below its framebuffer at %#llx (%llu MiB)",
            (unsigned long long)(ram_bytes / MIB), (unsigned long long)LINUX_FB_GPA,
            (unsigned long long)(LINUX_FB_GPA / MIB));
    if (cmdline_len > bi->cmdline_size || cmdline_len >= LINUX_CMDLINE_ROOM)
        return loader_error(LINUX_PLACE_ECMDLINE, err, errlen,
                            "command line of %zu bytes: the kernel takes at most %u", cmdline_len,
                            bi->cmdline_size < LINUX_CMDLINE_ROOM - 1
                                ? bi->cmdline_size
                                : (unsigned)(LINUX_CMDLINE_ROOM - 1));
    struct linux_placement p;
    memset(&p, 0, sizeof p);
    p.load_gpa = bzimage_load_address(bi, LINUX_KERNEL_MIN_GPA);
    if (!p.load_gpa)
        return loader_error(LINUX_PLACE_ELOAD, err, errlen,
                            "the kernel is not relocatable and its pref_address %#llx is "
                            "below %#llx",
                            (unsigned long long)bi->pref_address,
                            (unsigned long long)LINUX_KERNEL_MIN_GPA);
    /* A corrupt pref_address can be anywhere up to 2^64: compare before adding. */
    if (p.load_gpa >= ram_bytes || bi->init_size > ram_bytes - p.load_gpa)
        return loader_error(
            LINUX_PLACE_ERAM, err, errlen,
            "the kernel needs RAM up to %llu MiB (loaded at %#llx, init_size %#x), the guest has %llu MiB",
            (unsigned long long)end_mib(p.load_gpa, bi->init_size), (unsigned long long)p.load_gpa,
            bi->init_size, (unsigned long long)(ram_bytes / MIB));
    p.entry_gpa = p.load_gpa + BZ_ENTRY64_OFFSET;
    p.kernel_end_gpa = p.load_gpa + bi->init_size;
    if (initrd_bytes) {
        /* As high as it may go (as GRUB does): the kernel keeps the low memory contiguous. */
        uint64_t top = ram_bytes < (uint64_t)bi->initrd_addr_max + 1
                         ? ram_bytes
                         : (uint64_t)bi->initrd_addr_max + 1;
        top &= ~(uint64_t)(LINUX_PAGE_BYTES - 1);
        uint64_t room = top > p.kernel_end_gpa ? top - page_up(p.kernel_end_gpa) : 0;
        if (top <= p.kernel_end_gpa || page_up(initrd_bytes) > room)
            return loader_error(
                LINUX_PLACE_EINITRD, err, errlen,
                "initrd of %llu KiB does not fit: %llu KiB free between the kernel's end %#llx and %#llx "
                "(end of RAM or initrd_addr_max)",
                (unsigned long long)(initrd_bytes >> 10), (unsigned long long)(room >> 10),
                (unsigned long long)p.kernel_end_gpa, (unsigned long long)top);
        p.initrd_gpa = top - page_up(initrd_bytes);
    }
    *out = p;
    return LINUX_PLACE_OK;
}

uint64_t linux_ram_needed(const struct bzimage_info *bi, uint64_t initrd_bytes)
{
    uint64_t load = bzimage_load_address(bi, LINUX_KERNEL_MIN_GPA);
    if (!load || end_mib(load, bi->init_size) == UINT64_MAX / MIB)
        return 0;
    uint64_t end = page_up(load + bi->init_size) + page_up(initrd_bytes);
    return (end + MIB - 1) / MIB * MIB;
}
