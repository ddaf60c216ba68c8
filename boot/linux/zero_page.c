/* boot_params, e820 and screen_info for a Linux guest (zero-page.rst, boot.rst). */
#include "boot/linux/zero_page.h"

#include "boot/linux/linux_layout.h"

#include <string.h>

_Static_assert(sizeof(struct boot_e820_entry) == 20, "e820 entries are 20 bytes");
_Static_assert(sizeof(struct linux_screen_info) == 0x40, "screen_info is 0x40 bytes");
_Static_assert(ZP_E820_TABLE + ZP_E820_MAX * sizeof(struct boot_e820_entry) <= 0xD00,
               "the e820 table ends where eddbuf begins");

/* XRGB8888 channel positions and sizes (bits), the wall's format. */
#define XRGB_RED_POS   16u
#define XRGB_GREEN_POS 8u
#define XRGB_BLUE_POS  0u
#define XRGB_RSVD_POS  24u
#define XRGB_CHANNEL   8u
#define XRGB_DEPTH     32u

static void put8(uint8_t *p, size_t off, uint8_t v)
{
    p[off] = v;
}

static void put32(uint8_t *p, size_t off, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++)
        p[off + i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, size_t off, uint64_t v)
{
    put32(p, off, (uint32_t)v);
    put32(p, off + 4, (uint32_t)(v >> 32));
}

/* Appends one entry; n == 0 means an earlier one did not fit, and stays 0. */
static unsigned add(struct boot_e820_entry *tab, unsigned n, unsigned max, uint64_t addr,
                    uint64_t size, uint32_t type)
{
    if (n == 0 || size == 0)
        return n;
    if (n >= max)
        return 0;
    tab[n] = (struct boot_e820_entry){ addr, size, type };
    return n + 1;
}

unsigned zp_e820_build(struct boot_e820_entry *tab, unsigned max, uint64_t ram_bytes,
                       const struct zp_framebuffer *fb)
{
    if (max < 1 || ram_bytes < LINUX_BIOS_AREA_END)
        return 0;
    tab[0] = (struct boot_e820_entry){ 0, LINUX_LOW_RAM_END, E820_TYPE_RAM };
    unsigned n = 1;
    n = add(tab, n, max, LINUX_LOW_RAM_END, LINUX_BIOS_AREA_END - LINUX_LOW_RAM_END,
            E820_TYPE_RESERVED);
    n = add(tab, n, max, LINUX_BIOS_AREA_END, ram_bytes - LINUX_BIOS_AREA_END, E820_TYPE_RAM);
    if (fb && fb->base && fb->bytes)
        n = add(tab, n, max, fb->base, fb->bytes, E820_TYPE_RESERVED);
    return n;
}

void zp_screen_info_vlfb(struct linux_screen_info *si, const struct zp_framebuffer *fb)
{
    memset(si, 0, sizeof *si);
    si->orig_video_isVGA = VIDEO_TYPE_VLFB;
    si->lfb_width = (uint16_t)fb->width;
    si->lfb_height = (uint16_t)fb->height;
    si->lfb_depth = XRGB_DEPTH;
    si->lfb_base = (uint32_t)fb->base;
    si->lfb_size = (uint32_t)(fb->bytes / VLFB_SIZE_UNIT);
    si->lfb_linelength = (uint16_t)fb->stride;
    si->red_size = si->green_size = si->blue_size = si->rsvd_size = XRGB_CHANNEL;
    si->red_pos = XRGB_RED_POS;
    si->green_pos = XRGB_GREEN_POS;
    si->blue_pos = XRGB_BLUE_POS;
    si->rsvd_pos = XRGB_RSVD_POS;
    si->orig_video_points = VLFB_FONT_HEIGHT;
    si->orig_video_cols = (uint8_t)(fb->width / VLFB_FONT_WIDTH > 255
                                        ? 255
                                        : fb->width / VLFB_FONT_WIDTH);
    si->orig_video_lines = (uint8_t)(fb->height / VLFB_FONT_HEIGHT > 255
                                         ? 255
                                         : fb->height / VLFB_FONT_HEIGHT);
}

int zp_build(uint8_t *zp, const uint8_t *img, const struct bzimage_info *bi,
             const struct zp_config *c)
{
    memset(zp, 0, ZP_BYTES);
    /* boot.rst "64-bit Boot Protocol": the setup header goes into the zero page at its own offset. */
    memcpy(zp + BZ_HEADER_FIRST, img + BZ_HEADER_FIRST, bi->header_end - BZ_HEADER_FIRST);
    put8(zp, BZ_TYPE_OF_LOADER, BZ_TYPE_OF_LOADER_UNDEFINED);
    put32(zp, BZ_CMD_LINE_PTR, (uint32_t)c->cmdline_gpa);
    put32(zp, ZP_EXT_CMD_LINE_PTR, (uint32_t)(c->cmdline_gpa >> 32));
    put32(zp, BZ_RAMDISK_IMAGE, c->initrd_bytes ? (uint32_t)c->initrd_gpa : 0);
    put32(zp, ZP_EXT_RAMDISK_IMAGE, c->initrd_bytes ? (uint32_t)(c->initrd_gpa >> 32) : 0);
    put32(zp, BZ_RAMDISK_SIZE, (uint32_t)c->initrd_bytes);
    put32(zp, ZP_EXT_RAMDISK_SIZE, (uint32_t)(c->initrd_bytes >> 32));
    put64(zp, BZ_SETUP_DATA, 0);
    put64(zp, ZP_ACPI_RSDP_ADDR, c->acpi_rsdp_gpa);

    struct boot_e820_entry tab[ZP_E820_MAX];
    unsigned n = zp_e820_build(tab, ZP_E820_MAX, c->ram_bytes, &c->fb);
    if (n == 0)
        return -1;
    memcpy(zp + ZP_E820_TABLE, tab, n * sizeof tab[0]);
    put8(zp, ZP_E820_ENTRIES, (uint8_t)n);

    if (c->fb.base && c->fb.bytes) {
        struct linux_screen_info si;
        zp_screen_info_vlfb(&si, &c->fb);
        memcpy(zp + ZP_SCREEN_INFO, &si, sizeof si);
    }
    return 0;
}
