/*
 * The render engine's GFXPIPE command table (gen9_gfxpipe.h says what it is for).  Lengths are
 * total dwords: fixed ones from the PRM / Mesa genxml gen9.xml and as i915's gen9_null_state
 * emits them; variable ones (vertex buffers and elements, stream-out declarations, palettes)
 * as ranges.
 */
#include <stddef.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_gfxpipe.h"

#define CMD(nm, sub, op, so, k, lo, hi) \
    { \
        .name = (nm), .subtype = (sub), .opcode = (op), .subop = (so), .kind = (k), \
        .len_min = (lo), .len_max = (hi) \
    }
#define STATE(nm, sub, op, so, len)        CMD(nm, sub, op, so, GEN9_GFX_STATE, len, len)
#define STATE_VAR(nm, sub, op, so, lo, hi) CMD(nm, sub, op, so, GEN9_GFX_STATE, lo, hi)
#define S3D                                GEN9_GFXPIPE_3D
#define MAX3D                              (0xFFu + 2u)

static const struct gen9_gfxpipe_cmd table[] = {
    /* Common and single-dword state (sub-types 0 and 1). */
    STATE("STATE_BASE_ADDRESS", GEN9_GFXPIPE_COMMON, 1, 0x01, 19),
    STATE("STATE_SIP", GEN9_GFXPIPE_COMMON, 1, 0x02, 3),
    STATE("PIPELINE_SELECT", GEN9_GFXPIPE_SINGLE_DW, 1, 0x04, 1),
    STATE("3DSTATE_VF_STATISTICS", GEN9_GFXPIPE_SINGLE_DW, 0, 0x0B, 1),

    /* 3D pipelined state (sub-type 3, opcode 0): gen9_null_state's, in its order. */
    STATE("3DSTATE_WM", S3D, 0, 0x14, 2),
    STATE("3DSTATE_PS", S3D, 0, 0x20, 12),
    STATE("3DSTATE_SF", S3D, 0, 0x13, 4),
    STATE("3DSTATE_SBE", S3D, 0, 0x1F, 6),
    STATE("3DSTATE_SBE_SWIZ", S3D, 0, 0x51, 11),
    STATE("3DSTATE_VS", S3D, 0, 0x10, 9),
    STATE("3DSTATE_HS", S3D, 0, 0x1B, 9),
    STATE("3DSTATE_GS", S3D, 0, 0x11, 10),
    STATE("3DSTATE_STREAMOUT", S3D, 0, 0x1E, 5),
    STATE("3DSTATE_DS", S3D, 0, 0x1D, 11),
    STATE("3DSTATE_CLIP", S3D, 0, 0x12, 4),
    STATE("3DSTATE_RASTER", S3D, 0, 0x50, 5),
    STATE("3DSTATE_TE", S3D, 0, 0x1C, 4),
    STATE("3DSTATE_VF", S3D, 0, 0x0C, 2),
    STATE("3DSTATE_WM_HZ_OP", S3D, 0, 0x52, 5),
    STATE("3DSTATE_URB_VS", S3D, 0, 0x30, 2),
    STATE("3DSTATE_URB_HS", S3D, 0, 0x31, 2),
    STATE("3DSTATE_URB_DS", S3D, 0, 0x32, 2),
    STATE("3DSTATE_URB_GS", S3D, 0, 0x33, 2),
    STATE("3DSTATE_CONSTANT_VS", S3D, 0, 0x15, 11),
    STATE("3DSTATE_CONSTANT_GS", S3D, 0, 0x16, 11),
    STATE("3DSTATE_CONSTANT_PS", S3D, 0, 0x17, 11),
    STATE("3DSTATE_CONSTANT_HS", S3D, 0, 0x19, 11),
    STATE("3DSTATE_CONSTANT_DS", S3D, 0, 0x1A, 11),
    STATE("3DSTATE_VF_INSTANCING", S3D, 0, 0x49, 3),
    STATE("3DSTATE_VF_SGVS", S3D, 0, 0x4A, 2),
    STATE("3DSTATE_VF_TOPOLOGY", S3D, 0, GEN9_3DSTATE_VF_TOPOLOGY_SUBOP, 2),
    STATE("3DSTATE_DEPTH_BUFFER", S3D, 0, 0x05, 8),
    STATE("3DSTATE_STENCIL_BUFFER", S3D, 0, 0x06, 5),
    STATE("3DSTATE_HIER_DEPTH_BUFFER", S3D, 0, 0x07, 5),
    STATE("3DSTATE_CLEAR_PARAMS", S3D, 0, 0x04, 3),
    STATE("3DSTATE_MULTISAMPLE", S3D, 0, 0x0D, 2),
    STATE("3DSTATE_INDEX_BUFFER", S3D, 0, 0x0A, 5),
    STATE_VAR("3DSTATE_VERTEX_BUFFERS", S3D, 0, 0x08, 5, MAX3D),
    STATE_VAR("3DSTATE_VERTEX_ELEMENTS", S3D, 0, 0x09, 3, MAX3D),
    STATE("3DSTATE_COMPONENT_PACKING", S3D, 0, 0x55, 5),
    STATE("3DSTATE_CC_STATE_POINTERS", S3D, 0, 0x0E, 2),
    STATE("3DSTATE_BLEND_STATE_POINTERS", S3D, 0, 0x24, 2),
    STATE("3DSTATE_PS_EXTRA", S3D, 0, 0x4F, 2),
    STATE("3DSTATE_PS_BLEND", S3D, 0, 0x4D, 2),
    STATE("3DSTATE_SAMPLER_STATE_POINTERS_VS", S3D, 0, 0x2B, 2),
    STATE("3DSTATE_SAMPLER_STATE_POINTERS_HS", S3D, 0, 0x2C, 2),
    STATE("3DSTATE_SAMPLER_STATE_POINTERS_DS", S3D, 0, 0x2D, 2),
    STATE("3DSTATE_SAMPLER_STATE_POINTERS_GS", S3D, 0, 0x2E, 2),
    STATE("3DSTATE_SAMPLER_STATE_POINTERS_PS", S3D, 0, 0x2F, 2),
    STATE("3DSTATE_SCISSOR_STATE_POINTERS", S3D, 0, 0x0F, 2),
    STATE("3DSTATE_VIEWPORT_STATE_POINTERS_CC", S3D, 0, 0x23, 2),
    STATE("3DSTATE_VIEWPORT_STATE_POINTERS_SF_CLIP", S3D, 0, 0x21, 2),
    STATE("3DSTATE_BINDING_TABLE_POINTERS_VS", S3D, 0, 0x26, 2),
    STATE("3DSTATE_BINDING_TABLE_POINTERS_HS", S3D, 0, 0x27, 2),
    STATE("3DSTATE_BINDING_TABLE_POINTERS_DS", S3D, 0, 0x28, 2),
    STATE("3DSTATE_BINDING_TABLE_POINTERS_GS", S3D, 0, 0x29, 2),
    STATE("3DSTATE_BINDING_TABLE_POINTERS_PS", S3D, 0, 0x2A, 2),
    /* Pure 3D state the golden state does not happen to use. */
    STATE("3DSTATE_SAMPLE_MASK", S3D, 0, 0x18, 2),
    STATE("3DSTATE_DEPTH_STENCIL_STATE_POINTERS", S3D, 0, 0x25, 2),
    STATE("3DSTATE_WM_CHROMAKEY", S3D, 0, 0x4C, 2),
    STATE("3DSTATE_WM_DEPTH_STENCIL", S3D, 0, 0x4E, 4),

    /* 3D non-pipelined state (sub-type 3, opcode 1). */
    STATE("3DSTATE_DRAWING_RECTANGLE", S3D, 1, 0x00, 4),
    STATE_VAR("3DSTATE_SAMPLER_PALETTE_LOAD0", S3D, 1, 0x02, 2, MAX3D),
    STATE("3DSTATE_CHROMA_KEY", S3D, 1, 0x04, 4),
    STATE("3DSTATE_POLY_STIPPLE_OFFSET", S3D, 1, 0x06, 2),
    STATE("3DSTATE_POLY_STIPPLE_PATTERN", S3D, 1, 0x07, 33),
    STATE("3DSTATE_LINE_STIPPLE", S3D, 1, 0x08, 3),
    STATE("3DSTATE_AA_LINE_PARAMETERS", S3D, 1, 0x0A, 3),
    STATE_VAR("3DSTATE_SAMPLER_PALETTE_LOAD1", S3D, 1, 0x0C, 2, MAX3D),
    STATE("3DSTATE_MONOFILTER_SIZE", S3D, 1, 0x11, 2),
    STATE("3DSTATE_PUSH_CONSTANT_ALLOC_VS", S3D, 1, 0x12, 2),
    STATE("3DSTATE_PUSH_CONSTANT_ALLOC_HS", S3D, 1, 0x13, 2),
    STATE("3DSTATE_PUSH_CONSTANT_ALLOC_DS", S3D, 1, 0x14, 2),
    STATE("3DSTATE_PUSH_CONSTANT_ALLOC_GS", S3D, 1, 0x15, 2),
    STATE("3DSTATE_PUSH_CONSTANT_ALLOC_PS", S3D, 1, 0x16, 2),
    STATE_VAR("3DSTATE_SO_DECL_LIST", S3D, 1, 0x17, 3, MAX3D),
    STATE("3DSTATE_SO_BUFFER", S3D, 1, 0x18, 8),
    STATE("3DSTATE_BINDING_TABLE_POOL_ALLOC", S3D, 1, 0x19, 4),
    STATE("3DSTATE_GATHER_POOL_ALLOC", S3D, 1, 0x1A, 4),
    STATE("3DSTATE_DX9_CONSTANT_BUFFER_POOL_ALLOC", S3D, 1, 0x1B, 4),
    STATE("3DSTATE_SAMPLE_PATTERN", S3D, 1, 0x1C, 9),

    /* The resource streamer writes these binding tables into memory at once. */
    CMD("3DSTATE_BINDING_TABLE_EDIT_VS", S3D, 0, 0x43, GEN9_GFX_WRITES_MEMORY, 3, 0x1FFu + 2u),
    CMD("3DSTATE_BINDING_TABLE_EDIT_GS", S3D, 0, 0x44, GEN9_GFX_WRITES_MEMORY, 3, 0x1FFu + 2u),
    CMD("3DSTATE_BINDING_TABLE_EDIT_HS", S3D, 0, 0x45, GEN9_GFX_WRITES_MEMORY, 3, 0x1FFu + 2u),
    CMD("3DSTATE_BINDING_TABLE_EDIT_DS", S3D, 0, 0x46, GEN9_GFX_WRITES_MEMORY, 3, 0x1FFu + 2u),
    CMD("3DSTATE_BINDING_TABLE_EDIT_PS", S3D, 0, 0x47, GEN9_GFX_WRITES_MEMORY, 3, 0x1FFu + 2u),

    CMD("PIPE_CONTROL", S3D, GEN9_PIPE_CONTROL_OPCODE, GEN9_PIPE_CONTROL_SUBOP,
        GEN9_GFX_PIPE_CONTROL, GEN9_PIPE_CONTROL_LEN, GEN9_PIPE_CONTROL_LEN),
    CMD("3DPRIMITIVE", S3D, GEN9_3DPRIMITIVE_OPCODE, 0, GEN9_GFX_DRAW, GEN9_3DPRIMITIVE_LEN,
        GEN9_3DPRIMITIVE_LEN),

    /* The media pipeline (sub-type 2): state at opcode 0, objects and walkers at opcode 1. */
    CMD("MEDIA_VFE_STATE", GEN9_GFXPIPE_MEDIA, 0, 0x0, GEN9_GFX_MEDIA_STATE, 9, 9),
    CMD("MEDIA_CURBE_LOAD", GEN9_GFXPIPE_MEDIA, 0, 0x1, GEN9_GFX_MEDIA_STATE, 4, 4),
    CMD("MEDIA_INTERFACE_DESCRIPTOR_LOAD", GEN9_GFXPIPE_MEDIA, 0, 0x2, GEN9_GFX_MEDIA_STATE, 4, 4),
    CMD("MEDIA_GATEWAY_STATE", GEN9_GFXPIPE_MEDIA, 0, 0x3, GEN9_GFX_MEDIA_STATE, 2, 2),
    CMD("MEDIA_STATE_FLUSH", GEN9_GFXPIPE_MEDIA, 0, 0x4, GEN9_GFX_MEDIA_STATE, 2, 2),
    CMD("MEDIA_OBJECT", GEN9_GFXPIPE_MEDIA, 1, 0x0, GEN9_GFX_MEDIA_OBJECT, 6, 0xFFFFu),
    CMD("MEDIA_OBJECT_PRT", GEN9_GFXPIPE_MEDIA, 1, 0x2, GEN9_GFX_MEDIA_OBJECT, 16, 16),
    CMD("MEDIA_OBJECT_WALKER", GEN9_GFXPIPE_MEDIA, 1, 0x3, GEN9_GFX_MEDIA_OBJECT, 17, 0xFFFFu),
    CMD("GPGPU_WALKER", GEN9_GFXPIPE_MEDIA, 1, 0x5, GEN9_GFX_GPGPU_WALKER, 15, 15),
    CMD("MEDIA_OBJECT_GRPID", GEN9_GFXPIPE_MEDIA, 1, 0x6, GEN9_GFX_MEDIA_OBJECT, 7, 0xFFFFu),
};

const struct gen9_gfxpipe_cmd *gen9_gfxpipe_lookup(uint32_t hdr)
{
    uint32_t sub = gen9_3d_subtype(hdr), op = gen9_3d_opcode(hdr), so = gen9_3d_subop(hdr);

    if (gen9_cmd_type(hdr) != GEN9_CMD_TYPE_3D)
        return NULL;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].subtype == sub && table[i].opcode == op && table[i].subop == so)
            return &table[i];
    return NULL;
}

unsigned gen9_topology_min_vertices(uint32_t t)
{
    if (t >= GEN9_3DPRIM_PATCHLIST_1 && t <= GEN9_3DPRIM_PATCHLIST_32)
        return t - GEN9_3DPRIM_PATCHLIST_1 + 1u;
    switch (t) {
    case GEN9_3DPRIM_POINTLIST:
    case GEN9_3DPRIM_POINTLIST_BF:
        return 1;
    case GEN9_3DPRIM_LINELIST:
    case GEN9_3DPRIM_LINESTRIP:
    case GEN9_3DPRIM_LINELOOP:
    case GEN9_3DPRIM_LINESTRIP_CONT:
    case GEN9_3DPRIM_LINESTRIP_BF:
    case GEN9_3DPRIM_LINESTRIP_CONT_BF:
        return 2;
    case GEN9_3DPRIM_TRILIST:
    case GEN9_3DPRIM_TRISTRIP:
    case GEN9_3DPRIM_TRIFAN:
    case GEN9_3DPRIM_TRISTRIP_REVERSE:
    case GEN9_3DPRIM_POLYGON:
    case GEN9_3DPRIM_RECTLIST:
    case GEN9_3DPRIM_TRIFAN_NOSTIPPLE:
        return 3;
    case GEN9_3DPRIM_QUADLIST:
    case GEN9_3DPRIM_QUADSTRIP:
    case GEN9_3DPRIM_LINELIST_ADJ:
    case GEN9_3DPRIM_LINESTRIP_ADJ:
        return 4;
    case GEN9_3DPRIM_TRILIST_ADJ:
    case GEN9_3DPRIM_TRISTRIP_ADJ:
        return 6;
    default:
        return 0;
    }
}

bool gen9_3dprimitive_draws_nothing(const uint32_t *cmd, uint32_t topology)
{
    uint32_t vertices = cmd[GEN9_3DPRIMITIVE_DW_VERTEX_COUNT];
    unsigned need;

    if (cmd[0] & (GEN9_3DPRIMITIVE_INDIRECT | GEN9_3DPRIMITIVE_PREDICATE))
        return false;
    if (vertices == 0)
        return true;
    if (topology == GEN9_TOPOLOGY_UNKNOWN)
        return false;
    need = gen9_topology_min_vertices(topology);
    return need != 0 && vertices < need;
}
