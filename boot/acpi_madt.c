/* RSDP -> XSDT/RSDT -> MADT -> processors.  Every length is checked against what is readable
 * before it is used, and every table the walk relies on must sum to zero. */
#include "boot/acpi_madt.h"

#include "boot/acpi.h"
#include "boot/le.h"

#include <stdio.h>
#include <string.h>

static uint8_t sum(const uint8_t *p, uint64_t len)
{
    uint8_t s = 0;
    for (uint64_t i = 0; i < len; i++)
        s += p[i];
    return s;
}

int acpi_rsdp_check(const uint8_t *rsdp, uint64_t len, char *err, unsigned errlen)
{
    if (len < ACPI_RSDP_V1_BYTES) {
        snprintf(err, errlen, "RSDP of %llu bytes is shorter than ACPI 1.0's %u",
                 (unsigned long long)len, ACPI_RSDP_V1_BYTES);
        return -1;
    }
    if (memcmp(rsdp, ACPI_RSDP_SIGNATURE, 8)) {
        snprintf(err, errlen, "RSDP has no 'RSD PTR ' signature");
        return -1;
    }
    if (sum(rsdp, ACPI_RSDP_V1_BYTES)) {
        snprintf(err, errlen, "RSDP checksum is wrong");
        return -1;
    }
    if (rsdp[ACPI_RSDP_REVISION] < 2)
        return 0;
    if (len < ACPI_RSDP_BYTES) {
        snprintf(err, errlen, "RSDP revision %u in %llu bytes (at least %u expected)",
                 rsdp[ACPI_RSDP_REVISION], (unsigned long long)len, ACPI_RSDP_BYTES);
        return -1;
    }
    uint32_t full = rd32(rsdp + ACPI_RSDP_LENGTH);
    if (full < ACPI_RSDP_BYTES || full > len) {
        snprintf(err, errlen, "RSDP length %u outside %u..%llu", full, ACPI_RSDP_BYTES,
                 (unsigned long long)len);
        return -1;
    }
    if (sum(rsdp, full)) {
        snprintf(err, errlen, "RSDP extended checksum is wrong");
        return -1;
    }
    return 0;
}

bool acpi_rsdp_scan(const uint8_t *area, uint64_t len, uint64_t *offset)
{
    char err[96];
    for (uint64_t off = 0; off + ACPI_RSDP_V1_BYTES <= len; off += ACPI_RSDP_ALIGN) {
        if (acpi_rsdp_check(area + off, len - off, err, sizeof err) == 0) {
            *offset = off;
            return true;
        }
    }
    return false;
}

/* Records one processor, skipping absent ones, repeated IDs and the xAPIC broadcast ID. */
static void add_cpu(struct madt_info *out, uint32_t id, uint32_t uid, uint32_t flags, bool x2apic)
{
    if (!(flags & (ACPI_MADT_ENABLED | ACPI_MADT_ONLINE_CAPABLE))) {
        out->n_absent++;
        return;
    }
    if (!x2apic && id == 0xFF) {
        out->n_ignored++;
        return;
    }
    for (unsigned i = 0; i < out->n_cpus; i++) {
        if (out->cpus[i].apic_id == id) {
            out->n_ignored++;
            return;
        }
    }
    if (out->n_cpus == MADT_MAX_CPUS) {
        out->dropped++;
        return;
    }
    out->cpus[out->n_cpus++] = (struct madt_cpu){ .apic_id = id,
                                                  .uid = uid,
                                                  .x2apic = x2apic,
                                                  .enabled = flags & ACPI_MADT_ENABLED };
}

int madt_parse(const uint8_t *madt, uint64_t len, struct madt_info *out, char *err, unsigned errlen)
{
    memset(out, 0, sizeof *out);
    if (len < ACPI_MADT_ENTRIES) {
        snprintf(err, errlen, "MADT of %llu bytes is shorter than its %u-byte header",
                 (unsigned long long)len, ACPI_MADT_ENTRIES);
        return -1;
    }
    if (memcmp(madt + ACPI_HDR_SIGNATURE, ACPI_SIG_MADT, 4)) {
        snprintf(err, errlen, "table signature is not 'APIC'");
        return -1;
    }
    uint32_t length = rd32(madt + ACPI_HDR_LENGTH);
    if (length < ACPI_MADT_ENTRIES || length > len) {
        snprintf(err, errlen, "MADT length %u outside %u..%llu", length, ACPI_MADT_ENTRIES,
                 (unsigned long long)len);
        return -1;
    }
    if (sum(madt, length)) {
        snprintf(err, errlen, "MADT checksum is wrong");
        return -1;
    }
    out->lapic_addr = rd32(madt + ACPI_MADT_LAPIC_ADDR);
    for (uint32_t off = ACPI_MADT_ENTRIES; off < length;) {
        if (length - off < 2) {
            snprintf(err, errlen, "MADT entry at offset %u is cut off by the table's end (%u)", off,
                     length);
            return -1;
        }
        const uint8_t *e = madt + off;
        uint8_t type = e[0], elen = e[1];
        if (elen < 2) {
            snprintf(err, errlen, "MADT entry at offset %u (type %u) has length %u", off, type,
                     elen);
            return -1;
        }
        if (elen > length - off) {
            snprintf(err, errlen,
                     "MADT entry at offset %u (type %u, %u bytes) runs past the table's end (%u)",
                     off, type, elen, length);
            return -1;
        }
        if (type == ACPI_MADT_LAPIC || type == ACPI_MADT_X2APIC) {
            unsigned need = type == ACPI_MADT_LAPIC ? ACPI_MADT_LAPIC_BYTES
                                                    : ACPI_MADT_X2APIC_BYTES;
            if (elen < need) {
                snprintf(err, errlen,
                         "MADT %s entry at offset %u has %u bytes (at least %u expected)",
                         type == ACPI_MADT_LAPIC ? "local APIC" : "local x2APIC", off, elen, need);
                return -1;
            }
            if (type == ACPI_MADT_LAPIC)
                add_cpu(out, e[ACPI_MADT_LAPIC_ID], e[ACPI_MADT_LAPIC_UID],
                        rd32(e + ACPI_MADT_LAPIC_FLAGS), false);
            else
                add_cpu(out, rd32(e + ACPI_MADT_X2APIC_ID), rd32(e + ACPI_MADT_X2APIC_UID),
                        rd32(e + ACPI_MADT_X2APIC_FLAGS), true);
        }
        off += elen;
    }
    return 0;
}

/* A whole system description table at `phys`: its header is read first, then all of it, whose
 * checksum must hold.  NULL with a reason in err. */
static const uint8_t *read_table(const struct acpi_memory *mem, uint64_t phys, const char *what,
                                 uint32_t *length, char *err, unsigned errlen)
{
    const uint8_t *h = mem->at(mem->ctx, phys, ACPI_HEADER_BYTES);
    if (!h) {
        snprintf(err, errlen, "%s at %#llx cannot be read", what, (unsigned long long)phys);
        return NULL;
    }
    uint32_t len = rd32(h + ACPI_HDR_LENGTH);
    if (len < ACPI_HEADER_BYTES || len > ACPI_TABLE_MAX) {
        snprintf(err, errlen, "%s at %#llx has length %u", what, (unsigned long long)phys, len);
        return NULL;
    }
    const uint8_t *t = mem->at(mem->ctx, phys, len);
    if (!t) {
        snprintf(err, errlen, "%s at %#llx (%u bytes) cannot be read", what,
                 (unsigned long long)phys, len);
        return NULL;
    }
    *length = len;
    return t;
}

int madt_find(const uint8_t *rsdp, uint64_t rsdp_len, const struct acpi_memory *mem,
              struct madt_info *out, char *err, unsigned errlen)
{
    if (acpi_rsdp_check(rsdp, rsdp_len, err, errlen) < 0)
        return -1;
    bool x = rsdp[ACPI_RSDP_REVISION] >= 2 && rd64(rsdp + ACPI_RSDP_XSDT);
    uint64_t root = x ? rd64(rsdp + ACPI_RSDP_XSDT) : rd32(rsdp + ACPI_RSDP_RSDT);
    const char *name = x ? ACPI_SIG_XSDT : ACPI_SIG_RSDT;
    unsigned esize = x ? 8 : 4;
    uint32_t len;
    const uint8_t *t = read_table(mem, root, name, &len, err, errlen);
    if (!t)
        return -1;
    if (memcmp(t + ACPI_HDR_SIGNATURE, name, 4)) {
        snprintf(err, errlen, "the RSDP's %s at %#llx has another signature", name,
                 (unsigned long long)root);
        return -1;
    }
    if (sum(t, len)) {
        snprintf(err, errlen, "%s checksum is wrong", name);
        return -1;
    }
    if ((len - ACPI_HEADER_BYTES) % esize) {
        snprintf(err, errlen, "%s length %u is not a header and whole %u-byte entries", name, len,
                 esize);
        return -1;
    }
    unsigned n = (len - ACPI_HEADER_BYTES) / esize;
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *e = t + ACPI_HEADER_BYTES + i * esize;
        uint64_t phys = x ? rd64(e) : rd32(e);
        const uint8_t *h = mem->at(mem->ctx, phys, ACPI_HEADER_BYTES);
        if (!h || memcmp(h + ACPI_HDR_SIGNATURE, ACPI_SIG_MADT, 4))
            continue; /* another table, or one we cannot read: not ours to judge */
        uint32_t mlen;
        const uint8_t *m = read_table(mem, phys, "MADT", &mlen, err, errlen);
        if (!m)
            return -1;
        return madt_parse(m, mlen, out, err, errlen);
    }
    snprintf(err, errlen, "no MADT ('APIC') among the %u tables of the %s", n, name);
    return -1;
}
