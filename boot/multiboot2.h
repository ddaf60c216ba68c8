/* Multiboot2 protocol constants, from the Multiboot2 specification (version 2.0), §3.1 (header
 * tags) and §3.6 (boot information tags).  Shared by the assembly header and the C parser. */
#ifndef TESSERA_BOOT_MULTIBOOT2_H
#define TESSERA_BOOT_MULTIBOOT2_H

#define MB2_HEADER_MAGIC     0xE85250D6 /* §3.1.1: in the image header */
#define MB2_BOOTLOADER_MAGIC 0x36D76289 /* §3.2: in EAX at entry */
#define MB2_ARCH_I386        0          /* 32-bit protected mode entry */

/* Header tag types (§3.1.3 onwards). */
#define MB2_HTAG_END          0
#define MB2_HTAG_INFO_REQUEST 1
#define MB2_HTAG_FRAMEBUFFER  5
#define MB2_HTAG_MODULE_ALIGN 6
#define MB2_HTAG_OPTIONAL     1 /* flags bit 0: boot loader may ignore the tag */

/* Boot information tag types (§3.6). */
#define MB2_TAG_END           0
#define MB2_TAG_CMDLINE       1
#define MB2_TAG_LOADER_NAME   2
#define MB2_TAG_MODULE        3
#define MB2_TAG_BASIC_MEMINFO 4
#define MB2_TAG_MMAP          6
#define MB2_TAG_FRAMEBUFFER   8
#define MB2_TAG_ACPI_OLD      14
#define MB2_TAG_ACPI_NEW      15

/* Memory map entry types (§3.6.8). */
#define MB2_MMAP_AVAILABLE    1
#define MB2_MMAP_RESERVED     2
#define MB2_MMAP_ACPI_RECLAIM 3
#define MB2_MMAP_ACPI_NVS     4
#define MB2_MMAP_BAD          5

#define MB2_FB_TYPE_RGB 1 /* §3.6.12: direct colour */

#endif
