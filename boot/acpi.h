/* ACPI table layouts the hypervisor reads (ACPI Specification 6.4): the RSDP (§5.2.5.3), the
 * System Description Table Header (§5.2.6), the RSDT (§5.2.7) and XSDT (§5.2.8), and the MADT
 * (§5.2.12) with its Processor Local APIC (§5.2.12.2) and Processor Local x2APIC (§5.2.12.12)
 * structures.  Offsets are in bytes from the start of the structure. */
#ifndef TESSERA_BOOT_ACPI_H
#define TESSERA_BOOT_ACPI_H

#define ACPI_RSDP_SIGNATURE "RSD PTR "
#define ACPI_RSDP_V1_BYTES  20u /* ACPI 1.0 RSDP: what the first checksum covers */
#define ACPI_RSDP_BYTES     36u /* ACPI 2.0+ RSDP */
#define ACPI_RSDP_ALIGN     16u /* found on a 16-byte boundary (§5.2.5.1) */
#define ACPI_RSDP_CHECKSUM  8
#define ACPI_RSDP_REVISION  15 /* 0: ACPI 1.0 (RSDT only); 2: XSDT and length */
#define ACPI_RSDP_RSDT      16 /* u32 physical address */
#define ACPI_RSDP_LENGTH    20 /* u32, revision >= 2 */
#define ACPI_RSDP_XSDT      24 /* u64 physical address, revision >= 2 */

#define ACPI_HEADER_BYTES  36u
#define ACPI_HDR_SIGNATURE 0 /* 4 ASCII characters */
#define ACPI_HDR_LENGTH    4 /* u32: the whole table, header included */
#define ACPI_HDR_CHECKSUM  9 /* the whole table sums to 0 modulo 256 */

#define ACPI_SIG_RSDT "RSDT"
#define ACPI_SIG_XSDT "XSDT"
#define ACPI_SIG_MADT "APIC"

/* MADT: after the header, u32 local APIC address and u32 flags, then entries of
 * { u8 type, u8 length, ... }. */
#define ACPI_MADT_LAPIC_ADDR   36
#define ACPI_MADT_FLAGS        40
#define ACPI_MADT_ENTRIES      44u
#define ACPI_MADT_LAPIC        0u /* u8 ACPI processor UID, u8 APIC ID, u32 flags */
#define ACPI_MADT_LAPIC_BYTES  8u
#define ACPI_MADT_LAPIC_UID    2
#define ACPI_MADT_LAPIC_ID     3
#define ACPI_MADT_LAPIC_FLAGS  4
#define ACPI_MADT_X2APIC       9u /* u16 reserved, u32 x2APIC ID, u32 flags, u32 UID */
#define ACPI_MADT_X2APIC_BYTES 16u
#define ACPI_MADT_X2APIC_ID    4
#define ACPI_MADT_X2APIC_FLAGS 8
#define ACPI_MADT_X2APIC_UID   12
/* Local APIC flags (Table 5.44): usable now, or may be brought online later by the OS. */
#define ACPI_MADT_ENABLED        (1u << 0)
#define ACPI_MADT_ONLINE_CAPABLE (1u << 1)

/* Where a BIOS machine keeps the RSDP when no loader hands it over (§5.2.5.1): the first KiB of
 * the EBDA, whose segment is the BDA word at 0x40E, or the BIOS area 0xE0000-0xFFFFF. */
#define ACPI_BDA_EBDA_SEGMENT  0x40Eu
#define ACPI_EBDA_SEARCH_BYTES 1024u
#define ACPI_BIOS_AREA_START   0xE0000u
#define ACPI_BIOS_AREA_END     0x100000u

#endif
