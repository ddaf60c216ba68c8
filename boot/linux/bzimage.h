/* The Linux x86 bzImage: its real-mode setup header and the checks a 64-bit boot loader makes
 * before it trusts one.  Pure: it reads bytes, it never loads anything.
 *
 * Source: Linux Documentation/x86/boot.rst ("The Real-Mode Kernel Header", "Details of Header
 * Fields", "64-bit Boot Protocol"); arch/x86/include/uapi/asm/bootparam.h names the fields.
 * Offsets below are from the start of the image file, which are also the offsets inside
 * struct boot_params (the header is copied to the same place in the zero page). */
#ifndef TESSERA_BOOT_LINUX_BZIMAGE_H
#define TESSERA_BOOT_LINUX_BZIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Setup-header fields (boot.rst "The Real-Mode Kernel Header"): offset in the file. */
#define BZ_SETUP_SECTS        0x1F1 /* u8: setup size in 512-byte sectors (0 means 4) */
#define BZ_SYSSIZE            0x1F4 /* u32: protected-mode code size in 16-byte paragraphs */
#define BZ_BOOT_FLAG          0x1FE /* u16: 0xAA55 */
#define BZ_JUMP               0x200 /* u16: short jump; its second byte ends the header */
#define BZ_HEADER             0x202 /* u32: "HdrS" */
#define BZ_VERSION            0x206 /* u16: boot protocol version, major << 8 | minor */
#define BZ_TYPE_OF_LOADER     0x210 /* u8: written by the loader */
#define BZ_LOADFLAGS          0x211 /* u8 */
#define BZ_RAMDISK_IMAGE      0x218 /* u32: written by the loader */
#define BZ_RAMDISK_SIZE       0x21C /* u32: written by the loader */
#define BZ_HEAP_END_PTR       0x224 /* u16 */
#define BZ_CMD_LINE_PTR       0x228 /* u32: written by the loader */
#define BZ_INITRD_ADDR_MAX    0x22C /* u32: highest address the initrd may occupy */
#define BZ_KERNEL_ALIGNMENT   0x230 /* u32 */
#define BZ_RELOCATABLE_KERNEL 0x234 /* u8 */
#define BZ_MIN_ALIGNMENT      0x235 /* u8: log2 */
#define BZ_XLOADFLAGS         0x236 /* u16 (2.12+) */
#define BZ_CMDLINE_SIZE       0x238 /* u32: longest command line, without its NUL (2.06+) */
#define BZ_PAYLOAD_OFFSET     0x248 /* u32: from the protected-mode code's start (2.08+) */
#define BZ_PAYLOAD_LENGTH     0x24C /* u32 (2.08+) */
#define BZ_SETUP_DATA         0x250 /* u64: setup_data list, written by the loader (2.09+) */
#define BZ_PREF_ADDRESS       0x258 /* u64 (2.10+) */
#define BZ_INIT_SIZE          0x260 /* u32: memory the kernel needs from its load address */

#define BZ_BOOT_FLAG_MAGIC          0xAA55u
#define BZ_HEADER_MAGIC             0x53726448u /* "HdrS" little-endian */
#define BZ_SECTOR_BYTES             512u
#define BZ_SETUP_SECTS_DEFAULT      4u             /* what setup_sects == 0 means */
#define BZ_SYSSIZE_UNIT             16u            /* syssize counts paragraphs */
#define BZ_HEADER_FIRST             BZ_SETUP_SECTS /* the header is [0x1F1, 0x202 + byte[0x201]) */
#define BZ_HEADER_END_BASE          0x202u
#define BZ_HEADER_MIN_END           (BZ_INIT_SIZE + 4u) /* a 2.12 header reaches init_size */
#define BZ_TYPE_OF_LOADER_UNDEFINED 0xFFu               /* "undefined" loader id (boot.rst) */

/* The oldest protocol Tessera boots: 2.12 brought xloadflags, which says whether the 64-bit
 * entry exists (boot.rst "64-bit Boot Protocol"). */
#define BZ_PROTOCOL_MIN 0x020Cu

/* loadflags (boot.rst, field "loadflags") */
#define BZ_LOADED_HIGH  0x01u /* protected-mode code loads at 0x100000 or above */
#define BZ_QUIET_FLAG   0x20u
#define BZ_CAN_USE_HEAP 0x80u

/* xloadflags (boot.rst, field "xloadflags") */
#define BZ_XLF_KERNEL_64              0x0001u /* has the 64-bit entry at load + 0x200 */
#define BZ_XLF_CAN_BE_LOADED_ABOVE_4G 0x0002u
#define BZ_XLF_5LEVEL                 0x0020u

/* The 64-bit entry point is this far into the protected-mode code (boot.rst "64-bit Boot
 * Protocol": "the 64-bit entry point ... is at the start address + 0x200"). */
#define BZ_ENTRY64_OFFSET 0x200u

/* What the header says, checked. */
struct bzimage_info {
    uint16_t version;      /* boot protocol, e.g. 0x020F for 2.15 */
    uint32_t setup_bytes;  /* (setup_sects + 1) * 512: where the protected-mode code starts */
    uint32_t kernel_bytes; /* the protected-mode code's size (syssize * 16) */
    uint32_t header_end;   /* the header is file[BZ_HEADER_FIRST, header_end) */
    uint8_t loadflags;
    uint16_t xloadflags;
    uint32_t kernel_alignment; /* a power of two */
    bool relocatable;
    uint64_t pref_address;
    uint32_t init_size; /* memory needed from the load address during boot */
    uint32_t initrd_addr_max;
    uint32_t cmdline_size;                   /* longest command line without its NUL */
    uint32_t payload_offset, payload_length; /* the compressed kernel inside the code */
};

/* Return codes; bzimage_parse writes one line naming the cause into err. */
#define BZ_OK         0
#define BZ_ETRUNCATED (-1) /* the file ends before something the header says is there */
#define BZ_ECORRUPT   (-2) /* not a bzImage, or its header contradicts itself */
#define BZ_EUNSUPPORTED \
    (-3) /* a real bzImage Tessera cannot boot (old protocol, no 64-bit entry) */

/* Checks the header of the `len`-byte image at `img`: the magic numbers, the protocol (2.12 or
 * later, named in the error otherwise), the sizes (setup and protected-mode code inside the
 * file, payload inside the code), the 64-bit entry (XLF_KERNEL_64), LOADED_HIGH, a power-of-two
 * kernel_alignment, and a load address it can use (relocatable, or pref_address itself).  On
 * success fills *out. */
int bzimage_parse(const void *img, size_t len, struct bzimage_info *out, char *err, size_t errlen);

/* The physical address to load the protected-mode code at: pref_address when it is at least
 * `lowest` and aligned, else (relocatable kernels) `lowest` rounded up to kernel_alignment.
 * 0 when there is none (a non-relocatable kernel whose pref_address is below `lowest`). */
uint64_t bzimage_load_address(const struct bzimage_info *bi, uint64_t lowest);

#endif
