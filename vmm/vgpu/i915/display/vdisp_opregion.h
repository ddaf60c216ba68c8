/*
 * The ACPI OpRegion an i915 guest with a display finds through its GPU's PCI ASLS register,
 * holding the Video BIOS Table (VBT) that describes the board: one DisplayPort connector on
 * DDI port D with AUX channel D.  Without it i915 6.1 assumes DP and HDMI on every port the
 * straps report (init_vbt_missing_defaults()), an HDMI connector whose EDID it would read over
 * GMBUS; with it, the guest has exactly one connector, DP-1.
 *
 * What i915 checks (display/intel_opregion.c intel_opregion_setup(), intel_bios.c
 * intel_bios_is_valid_vbt(), parse_general_definitions(), parse_ddi_port()): the 16-byte
 * signature "IntelGraphicsMem", then with no mailbox announced (no ACPI methods, no SWSCI, no
 * ASLE) the VBT at offset 0x400 up to the end of the 8 KiB region: "$VBT", vbt_size within it,
 * the BDB header and block sizes within vbt_size; the general-definitions block (2) with child
 * devices of the size the BDB version implies (33 bytes below version 195).  GVT-g builds the
 * same region (gvt/opregion.c intel_vgpu_init_opregion(), virt_vbt_generation()).
 *
 * Pure: the caller copies the bytes into the guest's memory (a reserved e820 range).
 */
#ifndef TESSERA_VMM_VGPU_I915_DISPLAY_VDISP_OPREGION_H
#define TESSERA_VMM_VGPU_I915_DISPLAY_VDISP_OPREGION_H

#include <stdint.h>

#define VDISP_OPREGION_BYTES  8192u  /* i915 OPREGION_SIZE */
#define VDISP_OPREGION_VBT    0x400u /* OPREGION_VBT_OFFSET: mailbox #4 */
#define VDISP_VBT_BDB_VERSION 186u   /* GVT-g's; child devices are 33 bytes */
#define VDISP_VBT_CHILD_BYTES 33u    /* LEGACY_CHILD_DEVICE_CONFIG_SIZE */
/* The one child device (intel_vbt_defs.h). */
#define VDISP_VBT_DEVICE_TYPE_DP 0x68C6u /* DEVICE_TYPE_DP */
#define VDISP_VBT_DVO_PORT_DPD   9u      /* DVO_PORT_DPD */
#define VDISP_VBT_AUX_D          0x30u   /* DP_AUX_D */
#define VDISP_VBT_CHILD_HANDLE   0x0040u
/* Offsets in a child device and in the VBT (intel_vbt_defs.h struct child_device_config,
 * struct vbt_header, struct bdb_header). */
#define VBT_CHILD_DEVICE_TYPE         2u
#define VBT_CHILD_DVO_PORT            16u
#define VBT_CHILD_AUX_CHANNEL         25u
#define VBT_HEADER_BYTES              48u
#define VBT_BDB_HEADER_BYTES          22u
#define VBT_BLOCK_GENERAL_DEFINITIONS 2u
#define VBT_GENERAL_DEFS_HEADER       5u /* before the child devices */

/* Fills region (VDISP_OPREGION_BYTES) with the OpRegion and its VBT; returns the VBT's size. */
uint32_t vdisp_opregion_build(uint8_t region[VDISP_OPREGION_BYTES]);

#endif
