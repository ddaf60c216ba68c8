/*
 * The scanner's command tables: for every command a guest may send, which engines run it,
 * its legal total length, the width of its length field, the header flags a guest may set
 * and the function that checks its operands.  Commands that exist but are never allowed are
 * listed as forbidden so a rejection can name them; anything absent is unknown.
 *
 * Per engine (PRM Vol 2a; GVT-g cmd_parser.c R_RCS/R_BCS/R_VCS/R_VECS): MI commands run
 * everywhere except MI_FLUSH_DW (blitter/video only); PIPE_CONTROL is render only; XY blits are
 * blitter only.  In the i915 profile the render engine's other GFXPIPE commands come from
 * drivers/igpu/gen9_gfxpipe.c (scan_gfxpipe_desc()).
 */
#include "drivers/igpu/scanner/scan_internal.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_gfxpipe.h"

#define MI_FORBIDDEN(op, nm) [op] = { .name = (nm), .engines = SCAN_ENG_ALL, .forbidden = true }
/* Arbitration points: forbidden to Tessera's guests (a guest has no business with preemption),
 * harmless for an i915 guest, whose every request uses them (gen8_emit_fini_breadcrumb_tail(),
 * gen8_emit_bb_start_noarb()): the scheduler's watchdog still bounds a workload. */
#define MI_ARB(op, nm) \
    [op] = { .name = (nm), \
             .engines = SCAN_ENG_ALL, \
             .forbidden = true, \
             .i915_ok = true, \
             .len_min = 1, \
             .len_max = 1, \
             .flags_ok = GEN9_MI_ARB_ENABLE }

static const struct scan_cmd_desc mi_table[GEN9_MI_OPCODE_MASK + 1] = {
    [GEN9_MI_NOOP_OP] = {
        .name = "MI_NOOP", .engines = SCAN_ENG_ALL, .len_min = 1, .len_max = 1,
        /* Writing the NOP identification register is harmless. */
        .flags_ok = GEN9_MI_NOOP_ID_WRITE | GEN9_MI_NOOP_ID_MASK,
    },
    [GEN9_MI_USER_INTERRUPT_OP] = {
        .name = "MI_USER_INTERRUPT", .engines = SCAN_ENG_ALL, .len_min = 1, .len_max = 1,
        .check = scan_check_user_interrupt,
    },
    [GEN9_MI_BATCH_BUFFER_END_OP] = {
        .name = "MI_BATCH_BUFFER_END", .engines = SCAN_ENG_ALL, .len_min = 1, .len_max = 1,
    },
    [GEN9_MI_BATCH_BUFFER_START_OP] = {
        .name = "MI_BATCH_BUFFER_START", .engines = SCAN_ENG_ALL,
        .len_min = GEN9_MI_BATCH_BUFFER_START_LEN, .len_max = GEN9_MI_BATCH_BUFFER_START_LEN,
        .len_mask = GEN9_MI_LEN_MASK_DEFAULT,
        /* PPGTT is let through the header test so the check can name the reason.
         * Predication and the resource streamer are not supported. */
        .flags_ok = GEN9_MI_BB_START_SECOND_LEVEL | GEN9_MI_BB_START_PPGTT,
        .check = scan_check_bb_start,
    },
    [GEN9_MI_STORE_DATA_IMM_OP] = {
        .name = "MI_STORE_DATA_IMM", .engines = SCAN_ENG_ALL,
        .len_min = GEN9_MI_STORE_DATA_IMM_DW_LEN, .len_max = GEN9_MI_STORE_DATA_IMM_QW_LEN,
        .len_mask = GEN9_MI_STORE_DATA_IMM_LEN_MASK,
        .flags_ok = GEN9_MI_SDI_USE_GGTT | GEN9_MI_SDI_STORE_QWORD,
        .check = scan_check_sdi,
    },
    [GEN9_MI_LOAD_REGISTER_IMM_OP] = {
        .name = "MI_LOAD_REGISTER_IMM", .engines = SCAN_ENG_ALL,
        .len_min = 3, .len_max = GEN9_MI_LEN_MASK_DEFAULT + GEN9_CMD_LEN_BIAS,
        .len_mask = GEN9_MI_LEN_MASK_DEFAULT,
        .flags_ok = GEN9_MI_LRI_FORCE_POSTED | GEN9_MI_LRI_BYTE_DISABLE_MASK,
        .check = scan_check_lri,
    },
    [GEN9_MI_STORE_REGISTER_MEM_OP] = {
        .name = "MI_STORE_REGISTER_MEM", .engines = SCAN_ENG_ALL,
        .len_min = GEN9_MI_SRM_LEN, .len_max = GEN9_MI_SRM_LEN,
        .len_mask = GEN9_MI_LEN_MASK_DEFAULT,
        .flags_ok = GEN9_MI_SRM_USE_GGTT,       /* no predication */
        .check = scan_check_srm,
    },
    [GEN9_MI_LOAD_REGISTER_MEM_OP] = {
        .name = "MI_LOAD_REGISTER_MEM", .engines = SCAN_ENG_ALL,
        .len_min = GEN9_MI_LRM_LEN, .len_max = GEN9_MI_LRM_LEN,
        .len_mask = GEN9_MI_LEN_MASK_DEFAULT,
        .flags_ok = GEN9_MI_LRM_USE_GGTT | GEN9_MI_LRM_ASYNC,
        .check = scan_check_lrm,
    },
    [GEN9_MI_FLUSH_DW_OP] = {
        .name = "MI_FLUSH_DW", .engines = SCAN_ENG_XCS,
        .len_min = GEN9_MI_FLUSH_DW_DW_LEN, .len_max = GEN9_MI_FLUSH_DW_QW_LEN,
        .len_mask = GEN9_MI_FLUSH_DW_LEN_MASK,
        .flags_ok = GEN9_MI_FLUSH_DW_STORE_INDEX | GEN9_MI_FLUSH_DW_INVALIDATE_TLB |
                    GEN9_MI_FLUSH_DW_OP_MASK | GEN9_MI_FLUSH_DW_NOTIFY |
                    GEN9_MI_FLUSH_DW_INVALIDATE_BSD,
        .check = scan_check_flush_dw,
    },
    /* Global state, other contexts, display, synchronisation with other engines, the status
     * page, or addresses computed on the GPU where the scanner cannot see them. */
    MI_FORBIDDEN(GEN9_MI_SET_PREDICATE_OP, "MI_SET_PREDICATE"),
    MI_FORBIDDEN(GEN9_MI_WAIT_FOR_EVENT_OP, "MI_WAIT_FOR_EVENT"),
    MI_ARB(GEN9_MI_ARB_CHECK_OP, "MI_ARB_CHECK"),
    MI_FORBIDDEN(GEN9_MI_RS_CONTROL_OP, "MI_RS_CONTROL"),
    MI_FORBIDDEN(GEN9_MI_REPORT_HEAD_OP, "MI_REPORT_HEAD"),
    MI_ARB(GEN9_MI_ARB_ON_OFF_OP, "MI_ARB_ON_OFF"),
    MI_FORBIDDEN(GEN9_MI_URB_ATOMIC_ALLOC_OP, "MI_URB_ATOMIC_ALLOC"),
    MI_FORBIDDEN(GEN9_MI_SUSPEND_FLUSH_OP, "MI_SUSPEND_FLUSH"),
    MI_FORBIDDEN(GEN9_MI_PREDICATE_OP, "MI_PREDICATE"),
    MI_FORBIDDEN(GEN9_MI_TOPOLOGY_FILTER_OP, "MI_TOPOLOGY_FILTER"),
    MI_FORBIDDEN(GEN9_MI_SET_APPID_OP, "MI_SET_APPID"),
    MI_FORBIDDEN(GEN9_MI_RS_CONTEXT_OP, "MI_RS_CONTEXT"),
    MI_FORBIDDEN(GEN9_MI_LOAD_SCAN_LINES_INCL_OP, "MI_LOAD_SCAN_LINES_INCL"),
    MI_FORBIDDEN(GEN9_MI_LOAD_SCAN_LINES_EXCL_OP, "MI_LOAD_SCAN_LINES_EXCL"),
    MI_FORBIDDEN(GEN9_MI_DISPLAY_FLIP_OP, "MI_DISPLAY_FLIP"),
    MI_FORBIDDEN(GEN9_MI_SEMAPHORE_MBOX_OP, "MI_SEMAPHORE_MBOX"),
    MI_FORBIDDEN(GEN9_MI_SET_CONTEXT_OP, "MI_SET_CONTEXT"),
    MI_FORBIDDEN(GEN9_MI_MATH_OP, "MI_MATH"),
    MI_FORBIDDEN(GEN9_MI_SEMAPHORE_SIGNAL_OP, "MI_SEMAPHORE_SIGNAL"),
    MI_FORBIDDEN(GEN9_MI_SEMAPHORE_WAIT_OP, "MI_SEMAPHORE_WAIT"),
    MI_FORBIDDEN(GEN9_MI_STORE_DATA_INDEX_OP, "MI_STORE_DATA_INDEX"),
    MI_FORBIDDEN(GEN9_MI_UPDATE_GTT_OP, "MI_UPDATE_GTT"),
    MI_FORBIDDEN(GEN9_MI_CLFLUSH_OP, "MI_CLFLUSH"),
    MI_FORBIDDEN(GEN9_MI_REPORT_PERF_COUNT_OP, "MI_REPORT_PERF_COUNT"),
    MI_FORBIDDEN(GEN9_MI_LOAD_REGISTER_REG_OP, "MI_LOAD_REGISTER_REG"),
    MI_FORBIDDEN(GEN9_MI_RS_STORE_DATA_IMM_OP, "MI_RS_STORE_DATA_IMM"),
    MI_FORBIDDEN(GEN9_MI_LOAD_URB_MEM_OP, "MI_LOAD_URB_MEM"),
    MI_FORBIDDEN(GEN9_MI_STORE_URB_MEM_OP, "MI_STORE_URB_MEM"),
    MI_FORBIDDEN(GEN9_MI_COPY_MEM_MEM_OP, "MI_COPY_MEM_MEM"),
    MI_FORBIDDEN(GEN9_MI_ATOMIC_OP, "MI_ATOMIC"),
    MI_FORBIDDEN(GEN9_MI_CONDITIONAL_BB_END_OP, "MI_CONDITIONAL_BATCH_BUFFER_END"),
};

#define BLT_FORBIDDEN(op, nm) [op] = { .name = (nm), .engines = SCAN_ENG_BCS, .forbidden = true }

static const struct scan_cmd_desc blt_table[GEN9_2D_OPCODE_MASK + 1] = {
    [GEN9_XY_COLOR_BLT_OP] = {
        .name = "XY_COLOR_BLT", .engines = SCAN_ENG_BCS,
        .len_min = GEN9_XY_COLOR_BLT_LEN, .len_max = GEN9_XY_COLOR_BLT_LEN,
        .len_mask = GEN9_2D_LEN_MASK,
        .flags_ok = GEN9_BLT_WRITE_RGBA | GEN9_BLT_DST_TILED,
        .check = scan_check_xy_color_blt,
    },
    [GEN9_XY_SRC_COPY_BLT_OP] = {
        .name = "XY_SRC_COPY_BLT", .engines = SCAN_ENG_BCS,
        .len_min = GEN9_XY_SRC_COPY_BLT_LEN, .len_max = GEN9_XY_SRC_COPY_BLT_LEN,
        .len_mask = GEN9_2D_LEN_MASK,
        .flags_ok = GEN9_BLT_WRITE_RGBA | GEN9_BLT_SRC_TILED | GEN9_BLT_DST_TILED,
        .check = scan_check_xy_src_copy_blt,
    },
    /* Blitter state set-up and the fast-copy path: not modelled, so not accepted. */
    BLT_FORBIDDEN(GEN9_XY_SETUP_BLT_OP, "XY_SETUP_BLT"),
    BLT_FORBIDDEN(GEN9_XY_SETUP_CLIP_BLT_OP, "XY_SETUP_CLIP_BLT"),
    BLT_FORBIDDEN(GEN9_XY_FAST_COPY_BLT_OP, "XY_FAST_COPY_BLT"),
};

static const struct scan_cmd_desc pipe_control_desc = {
    .name = "PIPE_CONTROL",
    .engines = SCAN_ENG_RCS,
    .len_min = GEN9_PIPE_CONTROL_LEN,
    .len_max = GEN9_PIPE_CONTROL_LEN,
    .len_mask = GEN9_3D_LEN_MASK,
    .check = scan_check_pipe_control,
};

const struct scan_cmd_desc *scan_lookup(uint32_t hdr)
{
    const struct scan_cmd_desc *d = NULL;

    switch (gen9_cmd_type(hdr)) {
    case GEN9_CMD_TYPE_MI:
        d = &mi_table[gen9_mi_opcode(hdr)];
        break;
    case GEN9_CMD_TYPE_2D:
        d = &blt_table[gen9_2d_opcode(hdr)];
        break;
    case GEN9_CMD_TYPE_3D:
        /* Only PIPE_CONTROL: 3D state and primitives are not supported. */
        return gen9_is_pipe_control(hdr) ? &pipe_control_desc : NULL;
    default:
        return NULL;
    }
    return d->name ? d : NULL;
}

const char *igpu_scan_cmd_name(uint32_t hdr)
{
    const struct scan_cmd_desc *d = scan_lookup(hdr);
    const struct gen9_gfxpipe_cmd *g;

    if (d)
        return d->name;
    g = gen9_gfxpipe_lookup(hdr); /* 3D and media commands, by their render names */
    return g ? g->name : "unknown command";
}
