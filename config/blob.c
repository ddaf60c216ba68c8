/* The blob wrapper (layout in blob.h): written by the host tool, checked by the hypervisor
 * before libfdt sees a byte of the DTB. */
#include <stdio.h>
#include <string.h>

#include <libfdt.h>

#include "config/blob.h"
#include "config/internal.h"

/* Header field offsets (blob.h has the table). */
enum {
    OFF_MAGIC = 0,
    OFF_VERSION = 4,
    OFF_HEADER_BYTES = 6,
    OFF_DTB_BYTES = 8,
    OFF_DTB_CRC = 12,
    OFF_RESERVED = 16,
    OFF_HEADER_CRC = 28,
};

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* DTB fields are big-endian. */
static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

size_t cfg_blob_size(size_t dtb_len)
{
    return CFG_BLOB_HEADER_BYTES + dtb_len;
}

int cfg_blob_wrap(const void *dtb, size_t dtb_len, void *out, size_t out_len, char *err,
                  size_t errlen)
{
    char msg[160];
    if (!dtb || dtb_len == 0 || dtb_len > CFG_BLOB_MAX_DTB) {
        snprintf(msg, sizeof msg, "config blob: DTB of %zu bytes, expected 1..%u", dtb_len,
                 CFG_BLOB_MAX_DTB);
        return cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
    }
    if (!out || out_len < cfg_blob_size(dtb_len)) {
        snprintf(msg, sizeof msg, "config blob: output buffer of %zu bytes, need %zu", out_len,
                 cfg_blob_size(dtb_len));
        return cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
    }
    uint8_t *h = out;
    memset(h, 0, CFG_BLOB_HEADER_BYTES);
    memcpy(h + OFF_MAGIC, CFG_BLOB_MAGIC, 4);
    put16(h + OFF_VERSION, CFG_BLOB_VERSION);
    put16(h + OFF_HEADER_BYTES, CFG_BLOB_HEADER_BYTES);
    put32(h + OFF_DTB_BYTES, (uint32_t)dtb_len);
    put32(h + OFF_DTB_CRC, crc32_ieee(dtb, dtb_len));
    put32(h + OFF_HEADER_CRC, crc32_ieee(h, OFF_HEADER_CRC));
    memcpy(h + CFG_BLOB_HEADER_BYTES, dtb, dtb_len);
    return (int)cfg_blob_size(dtb_len);
}

int cfg_blob_load(const void *blob, size_t len, struct cfg *out, char *err, size_t errlen)
{
    char msg[200];
    const uint8_t *h = blob;
    if (!blob || !out)
        return cfg_fail_raw(err, errlen, CFG_EBLOB, "config blob: no data");
    if (len < CFG_BLOB_HEADER_BYTES) {
        snprintf(msg, sizeof msg, "config blob: %zu bytes, shorter than its %u-byte header", len,
                 CFG_BLOB_HEADER_BYTES);
        return cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
    }
    if (memcmp(h + OFF_MAGIC, CFG_BLOB_MAGIC, 4) != 0) {
        snprintf(msg, sizeof msg,
                 "config blob: bad magic %02x %02x %02x %02x (expected \"" CFG_BLOB_MAGIC
                 "\": not a Tessera configuration blob)",
                 h[0], h[1], h[2], h[3]);
        return cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
    }
    /* The header CRC first: a damaged header must not be read as a new version or size. */
    uint32_t hcrc = get32(h + OFF_HEADER_CRC), hcalc = crc32_ieee(h, OFF_HEADER_CRC);
    if (hcrc != hcalc) {
        snprintf(msg, sizeof msg,
                 "config blob: header CRC 0x%08x, computed 0x%08x (corrupt "
                 "header)",
                 hcrc, hcalc);
        return cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
    }
    if (get16(h + OFF_VERSION) != CFG_BLOB_VERSION) {
        snprintf(msg, sizeof msg,
                 "config blob: format version %u, this hypervisor reads "
                 "version %u",
                 get16(h + OFF_VERSION), CFG_BLOB_VERSION);
        return cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
    }
    if (get16(h + OFF_HEADER_BYTES) != CFG_BLOB_HEADER_BYTES) {
        snprintf(msg, sizeof msg, "config blob: header size %u, expected %u",
                 get16(h + OFF_HEADER_BYTES), CFG_BLOB_HEADER_BYTES);
        return cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
    }
    for (unsigned i = OFF_RESERVED; i < OFF_HEADER_CRC; i++) {
        if (h[i] != 0)
            return cfg_fail_raw(err, errlen, CFG_EBLOB,
                                "config blob: reserved header bytes are not zero");
    }
    uint32_t dtb_len = get32(h + OFF_DTB_BYTES);
    if (dtb_len == 0 || dtb_len > CFG_BLOB_MAX_DTB) {
        snprintf(msg, sizeof msg, "config blob: DTB size %u, expected 1..%u", dtb_len,
                 CFG_BLOB_MAX_DTB);
        return cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
    }
    if (dtb_len > len - CFG_BLOB_HEADER_BYTES) {
        snprintf(msg, sizeof msg,
                 "config blob: header says %u DTB bytes, only %zu present "
                 "(truncated)",
                 dtb_len, len - CFG_BLOB_HEADER_BYTES);
        return cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
    }
    const uint8_t *dtb = h + CFG_BLOB_HEADER_BYTES;
    uint32_t crc = get32(h + OFF_DTB_CRC), calc = crc32_ieee(dtb, dtb_len);
    if (crc != calc) {
        snprintf(msg, sizeof msg, "config blob: DTB CRC 0x%08x, computed 0x%08x (corrupt)", crc,
                 calc);
        return cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
    }
    /* The DTB must be exactly what the wrapper says: no stray bytes a checker would skip. */
    /* (Read bytewise: the blob may sit at any address, libfdt's accessors want alignment.) */
    if (dtb_len >= sizeof(struct fdt_header) &&
        get_be32(dtb + offsetof(struct fdt_header, magic)) == FDT_MAGIC) {
        uint32_t total = get_be32(dtb + offsetof(struct fdt_header, totalsize));
        if (total != dtb_len) {
            snprintf(msg, sizeof msg, "config blob: DTB header totalsize %u, wrapper says %u",
                     total, dtb_len);
            return cfg_fail_raw(err, errlen, CFG_EBLOB, msg);
        }
    }
    return cfg_check_dtb(dtb, dtb_len, out, err, errlen);
}
