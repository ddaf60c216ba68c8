/*
 * The OpRegion and VBT (vdisp_opregion.h says what i915 reads and why).
 */
#include "vmm/vgpu/i915/display/vdisp_opregion.h"

#include <string.h>

#define OPREGION_SIZE_FIELD 16u  /* u32: the region's size in KiB */
#define OPREGION_VERSION    20u  /* over: rsvd, revision, minor, major */
#define OPREGION_MBOXES     88u  /* u32: none of ACPI, SWSCI, ASLE */
#define VBT_VERSION         100u /* the VBT header's own version, as GVT-g writes it */

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v);
    put16(p + 2, v >> 16);
}

uint32_t vdisp_opregion_build(uint8_t region[VDISP_OPREGION_BYTES])
{
    memset(region, 0, VDISP_OPREGION_BYTES);
    memcpy(region, "IntelGraphicsMem", 16);
    put32(region + OPREGION_SIZE_FIELD, VDISP_OPREGION_BYTES / 1024u);
    region[OPREGION_VERSION + 3] = 2; /* version 2.0 */
    put32(region + OPREGION_MBOXES, 0);

    uint8_t *vbt = region + VDISP_OPREGION_VBT;
    uint8_t *bdb = vbt + VBT_HEADER_BYTES;
    uint8_t *block = bdb + VBT_BDB_HEADER_BYTES;
    uint8_t *defs = block + 3; /* block id, then u16 size */
    uint8_t *child = defs + VBT_GENERAL_DEFS_HEADER;
    uint32_t block_bytes = VBT_GENERAL_DEFS_HEADER + VDISP_VBT_CHILD_BYTES;
    uint32_t bdb_bytes = VBT_BDB_HEADER_BYTES + 3 + block_bytes;
    uint32_t vbt_bytes = VBT_HEADER_BYTES + bdb_bytes;

    /* The general definitions: no CRT DDC pin, one child device. */
    block[0] = VBT_BLOCK_GENERAL_DEFINITIONS;
    put16(block + 1, block_bytes);
    defs[4] = VDISP_VBT_CHILD_BYTES; /* child_dev_size */
    put16(child, VDISP_VBT_CHILD_HANDLE);
    put16(child + VBT_CHILD_DEVICE_TYPE, VDISP_VBT_DEVICE_TYPE_DP);
    child[VBT_CHILD_DVO_PORT] = VDISP_VBT_DVO_PORT_DPD;
    child[VBT_CHILD_AUX_CHANNEL] = VDISP_VBT_AUX_D;

    memcpy(bdb, "BIOS_DATA_BLOCK ", 16);
    put16(bdb + 16, VDISP_VBT_BDB_VERSION);
    put16(bdb + 18, VBT_BDB_HEADER_BYTES);
    put16(bdb + 20, bdb_bytes);

    memcpy(vbt, "$VBT SKYLAKE        ", 20);
    put16(vbt + 20, VBT_VERSION);
    put16(vbt + 22, VBT_HEADER_BYTES);
    put16(vbt + 24, vbt_bytes);
    put32(vbt + 28, VBT_HEADER_BYTES); /* bdb_offset */
    uint8_t sum = 0;                   /* every byte of the VBT adds to 0 */
    for (uint32_t i = 0; i < vbt_bytes; i++)
        sum = (uint8_t)(sum + vbt[i]);
    vbt[26] = (uint8_t)(0x100 - sum);
    return vbt_bytes;
}
