/* The configuration blob: a DTB wrapped with a small header so the hypervisor can tell a
 * configuration from any other GRUB module or stray bytes, and a corrupt one from a valid one,
 * before libfdt looks at it.
 *
 * Layout (all fields little-endian; docs/config.md has the same table):
 *
 *   offset size  field
 *   0      4     magic        "TSCF" (0x54 0x53 0x43 0x46)
 *   4      2     version      CFG_BLOB_VERSION (1)
 *   6      2     header size  CFG_BLOB_HEADER_BYTES (32); the DTB starts here, 8-byte aligned
 *   8      4     DTB size     bytes, equal to the DTB header's totalsize
 *   12     4     DTB CRC-32   IEEE 802.3 CRC-32 (lib/crc32.h, as zlib's crc32) over the DTB
 *   16     12    reserved     zero
 *   28     4     header CRC   CRC-32 over bytes 0..27
 *   32     n     the DTB
 *
 * Bytes after the DTB (padding added when the blob is embedded or loaded) are ignored. */
#ifndef CONFIG_BLOB_H
#define CONFIG_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "lib/crc32.h"

#define CFG_BLOB_MAGIC        "TSCF"
#define CFG_BLOB_VERSION      1u
#define CFG_BLOB_HEADER_BYTES 32u
#define CFG_BLOB_MAX_DTB      (1u << 20) /* far above any real configuration */

/* Bytes a blob wrapping a dtb_len-byte DTB takes. */
size_t cfg_blob_size(size_t dtb_len);

/* Writes the header and a copy of the DTB into out.  The DTB is not checked here (the tool runs
 * cfg_check_dtb first).  Returns the blob size, or CFG_EBLOB with a message if the DTB is empty
 * or larger than CFG_BLOB_MAX_DTB or out_len is too small. */
int cfg_blob_wrap(const void *dtb, size_t dtb_len, void *out, size_t out_len, char *err,
                  size_t errlen);

/* The hypervisor's entry point: checks the wrapper (magic, version, header size and CRC, DTB size
 * against len, DTB CRC), then the DTB header (magic, version, totalsize via fdt_check_header and
 * the structure via fdt_check_full), then every semantic rule (cfg_check_dtb).  Returns CFG_OK
 * with *out filled, or CFG_EBLOB / CFG_EINVALID / CFG_ENOMEM with one line in err. */
int cfg_blob_load(const void *blob, size_t len, struct cfg *out, char *err, size_t errlen);

#endif
