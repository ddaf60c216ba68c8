/* The Linux "zero page" (struct boot_params) a 64-bit boot loader hands the kernel in RSI, with
 * its e820 memory map and the screen_info that describes a linear framebuffer.  Pure.
 *
 * Sources: Linux Documentation/x86/zero-page.rst (offsets of struct boot_params),
 * Documentation/x86/boot.rst (the setup header inside it, "64-bit Boot Protocol"),
 * arch/x86/include/uapi/asm/bootparam.h and e820/types.h, include/uapi/linux/screen_info.h. */
#ifndef TESSERA_BOOT_LINUX_ZERO_PAGE_H
#define TESSERA_BOOT_LINUX_ZERO_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "boot/linux/bzimage.h"

#define ZP_BYTES 4096u
/* boot_params offsets (zero-page.rst) */
#define ZP_SCREEN_INFO       0x000 /* struct screen_info, 0x40 bytes */
#define ZP_ACPI_RSDP_ADDR    0x070 /* u64 */
#define ZP_EXT_RAMDISK_IMAGE 0x0C0 /* u32: ramdisk_image bits 63:32 */
#define ZP_EXT_RAMDISK_SIZE  0x0C4 /* u32: ramdisk_size bits 63:32 */
#define ZP_EXT_CMD_LINE_PTR  0x0C8 /* u32: cmd_line_ptr bits 63:32 */
#define ZP_E820_ENTRIES      0x1E8 /* u8 */
#define ZP_SENTINEL          0x1EF /* u8: must stay 0 (the kernel clears fields otherwise) */
#define ZP_E820_TABLE        0x2D0 /* struct boot_e820_entry[ZP_E820_MAX] */
#define ZP_E820_MAX          128u  /* E820_MAX_ENTRIES_ZEROPAGE */

/* e820 types (arch/x86/include/asm/e820/types.h) */
#define E820_TYPE_RAM      1u
#define E820_TYPE_RESERVED 2u

struct boot_e820_entry {
    uint64_t addr, size;
    uint32_t type;
} __attribute__((packed));

/* include/uapi/linux/screen_info.h, offsets in the comments. */
struct linux_screen_info {
    uint8_t orig_x, orig_y;                           /* 0x00 */
    uint16_t ext_mem_k;                               /* 0x02 */
    uint16_t orig_video_page;                         /* 0x04 */
    uint8_t orig_video_mode;                          /* 0x06 */
    uint8_t orig_video_cols;                          /* 0x07 */
    uint8_t flags;                                    /* 0x08 */
    uint8_t unused2;                                  /* 0x09 */
    uint16_t orig_video_ega_bx;                       /* 0x0a */
    uint16_t unused3;                                 /* 0x0c */
    uint8_t orig_video_lines;                         /* 0x0e */
    uint8_t orig_video_isVGA;                         /* 0x0f: VIDEO_TYPE_* */
    uint16_t orig_video_points;                       /* 0x10: font height */
    uint16_t lfb_width, lfb_height, lfb_depth;        /* 0x12, 0x14, 0x16 */
    uint32_t lfb_base;                                /* 0x18 */
    uint32_t lfb_size;                                /* 0x1c: for VLFB, in 64 KiB units */
    uint16_t cl_magic, cl_offset;                     /* 0x20 */
    uint16_t lfb_linelength;                          /* 0x24: bytes per line */
    uint8_t red_size, red_pos, green_size, green_pos; /* 0x26 */
    uint8_t blue_size, blue_pos, rsvd_size, rsvd_pos; /* 0x2a */
    uint16_t vesapm_seg, vesapm_off;                  /* 0x2e: no protected-mode interface when 0 */
    uint16_t pages;                                   /* 0x32 */
    uint16_t vesa_attributes;                         /* 0x34 */
    uint32_t capabilities;                            /* 0x36 */
    uint32_t ext_lfb_base;                            /* 0x3a */
    uint8_t reserved[2];                              /* 0x3e */
} __attribute__((packed));

#define VIDEO_TYPE_VLFB  0x23u  /* VESA VGA in graphic mode: what vesafb binds */
#define VLFB_SIZE_UNIT   65536u /* lfb_size units for VLFB (vesafb: size_total = lfb_size * 65536) */
#define VLFB_FONT_HEIGHT 16u    /* orig_video_points / lines: an 8x16 console font */
#define VLFB_FONT_WIDTH  8u

/* A linear framebuffer in XRGB8888 (the kiosk wall's own format). */
struct zp_framebuffer {
    uint64_t base;          /* guest-physical, below 4 GiB; 0: none */
    uint32_t width, height; /* pixels */
    uint32_t stride;        /* bytes per line */
    uint64_t bytes;         /* the region's size, a multiple of VLFB_SIZE_UNIT */
};

/* What the loader decided, for the zero page. */
struct zp_config {
    uint64_t ram_bytes; /* guest RAM is [0, ram_bytes) */
    uint64_t cmdline_gpa;
    uint64_t initrd_gpa, initrd_bytes; /* initrd_bytes 0: none */
    uint64_t acpi_rsdp_gpa;            /* 0: none */
    struct zp_framebuffer fb;
};

/* The e820 map of a guest: RAM below 639 KiB (the real-mode trampoline's home), the BIOS area
 * reserved up to 1 MiB (the MP table lives there), RAM from 1 MiB to ram_bytes, and the
 * framebuffer reserved.  Returns the number of entries (at most `max`), 0 if they do not fit or
 * ram_bytes is below 1 MiB. */
unsigned zp_e820_build(struct boot_e820_entry *tab, unsigned max, uint64_t ram_bytes,
                       const struct zp_framebuffer *fb);

/* Fills the 4096-byte zero page `zp`: zeroed, the setup header copied from the image
 * (file[0x1F1, header_end)), then type_of_loader, cmd_line_ptr, the initrd, setup_data 0, the
 * e820 table and (with a framebuffer) a VLFB screen_info.  `img` is the image bi was parsed
 * from.  Returns 0, or -1 if the e820 map does not fit. */
int zp_build(uint8_t *zp, const uint8_t *img, const struct bzimage_info *bi,
             const struct zp_config *c);

/* Fills the screen_info for an XRGB8888 framebuffer (VIDEO_TYPE_VLFB, as vesafb expects). */
void zp_screen_info_vlfb(struct linux_screen_info *si, const struct zp_framebuffer *fb);

#endif
