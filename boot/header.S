/* The Multiboot2 header GRUB looks for in the first 32 KiB of the image (spec §3.1).  We ask for
 * the memory map, a framebuffer (the kiosk wall is drawn on it), the ACPI RSDP and page-aligned
 * modules (guest images are mapped into guests page by page). */
#include "boot/multiboot2.h"

    .section .multiboot2, "a"
    .balign 8
mb2_header:
    .long MB2_HEADER_MAGIC
    .long MB2_ARCH_I386
    .long mb2_header_end - mb2_header
    .long -(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))

    .balign 8
info_request:                           /* §3.1.4; every entry is optional for the loader */
    .short MB2_HTAG_INFO_REQUEST, MB2_HTAG_OPTIONAL
    .long info_request_end - info_request
    .long MB2_TAG_CMDLINE, MB2_TAG_MODULE, MB2_TAG_MMAP, MB2_TAG_FRAMEBUFFER
    .long MB2_TAG_ACPI_OLD, MB2_TAG_ACPI_NEW
info_request_end:

    .balign 8
framebuffer:                            /* §3.1.10: preferred wall mode, 32 bpp */
    .short MB2_HTAG_FRAMEBUFFER, MB2_HTAG_OPTIONAL
    .long 20
    .long 1024, 768, 32

    .balign 8
    .short MB2_HTAG_MODULE_ALIGN, 0     /* §3.1.11 */
    .long 8

    .balign 8
    .short MB2_HTAG_END, 0
    .long 8
mb2_header_end:
