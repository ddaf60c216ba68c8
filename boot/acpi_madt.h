/* The processors the firmware lists in the ACPI MADT, found from the RSDP through the XSDT (or
 * the RSDT of ACPI 1.0).  Pure: physical memory is read through a window the caller provides,
 * so the walk is unit-tested and fuzzed on hand-built tables. */
#ifndef TESSERA_BOOT_ACPI_MADT_H
#define TESSERA_BOOT_ACPI_MADT_H

#include <stdbool.h>
#include <stdint.h>

#define MADT_MAX_CPUS  64
#define ACPI_TABLE_MAX (1u << 20) /* a longer table is taken for garbage */

struct madt_cpu {
    uint32_t apic_id;
    uint32_t uid; /* the ACPI processor UID */
    bool x2apic;  /* from a Processor Local x2APIC structure */
    bool enabled; /* false: online-capable, not enabled by the firmware */
};

struct madt_info {
    uint32_t lapic_addr;                 /* the 32-bit local APIC address of the MADT header */
    struct madt_cpu cpus[MADT_MAX_CPUS]; /* in MADT order */
    unsigned n_cpus;
    unsigned n_absent;  /* entries with neither Enabled nor Online Capable set */
    unsigned n_ignored; /* an APIC ID listed twice, or the xAPIC broadcast ID 0xFF */
    unsigned dropped;   /* processors beyond MADT_MAX_CPUS */
};

/* A window on physical memory: a pointer to `len` readable bytes at `phys`, or NULL when that
 * range cannot be read (not mapped, or not memory). */
struct acpi_memory {
    const void *(*at)(void *ctx, uint64_t phys, uint64_t len);
    void *ctx;
};

/* Checks an RSDP of `len` bytes: signature, the ACPI 1.0 checksum and, for revision 2 and
 * later, the length and extended checksum.  0, or -1 with a one-line reason in err. */
int acpi_rsdp_check(const uint8_t *rsdp, uint64_t len, char *err, unsigned errlen);

/* Looks for a valid RSDP on the 16-byte boundaries of [area, area + len); its offset in
 * *offset.  False when there is none. */
bool acpi_rsdp_scan(const uint8_t *area, uint64_t len, uint64_t *offset);

/* Parses a MADT of `len` readable bytes (its header's length must fit in them): checksum,
 * signature, and every entry's length.  Other entry types are skipped by their length.
 * 0, or -1 with a one-line reason in err; *out is then partly filled and must not be used. */
int madt_parse(const uint8_t *madt, uint64_t len, struct madt_info *out, char *err,
               unsigned errlen);

/* From an RSDP (a copy of `rsdp_len` bytes) through the XSDT, or the RSDT when the RSDP is
 * ACPI 1.0 or has no XSDT, to the MADT, and parses it.  0, or -1 with a reason in err. */
int madt_find(const uint8_t *rsdp, uint64_t rsdp_len, const struct acpi_memory *mem,
              struct madt_info *out, char *err, unsigned errlen);

#endif
