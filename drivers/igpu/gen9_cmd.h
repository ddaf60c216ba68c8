/*
 * Gen9 (Skylake) command-streamer command encodings: the header dword layout shared by every
 * command, and the commands Tessera's scanner accepts and its model executes.
 *
 * Sources: Intel PRM for Skylake, Vol 2a "Command Reference: Instructions" (MI_*, PIPE_CONTROL,
 * XY_*_BLT) and Vol 2d "Command Reference: Structures" (BR13 and the blitter coordinate
 * dwords); Linux i915 `gt/intel_gpu_commands.h` (MI_INSTR, GFX_OP_PIPE_CONTROL, the BLT_*
 * bits) and GVT-g `gvt/cmd_parser.c` (the length-field width of each command).
 *
 * Conventions used below:
 *  - "len field" is the DWord Length field of dword 0: total dwords - 2 (PRM "Excludes DWord
 *    (0,1)") for every command that has one.
 *  - Graphics addresses are 48 bits on Gen8+: a low dword holding bits 31:0 (low bits that the
 *    hardware ignores are listed per command) and a high dword holding bits 47:32 in 15:0;
 *    bits 31:16 of the high dword are reserved (must be zero).
 *  - Dword indices (GEN9_*_DW_*) count from the header dword, which is dword 0.
 */
#ifndef TESSERA_DRIVERS_IGPU_GEN9_CMD_H
#define TESSERA_DRIVERS_IGPU_GEN9_CMD_H

#include <stdbool.h>
#include <stdint.h>

/* ---- Header dword: command type (PRM Vol 2a "Command Formats"; i915 INSTR_CLIENT_SHIFT) ---- */
#define GEN9_CMD_TYPE_SHIFT     29
#define GEN9_CMD_TYPE_MASK      0x7u /* bits 31:29 */
#define GEN9_CMD_TYPE_MI        0x0u /* memory interface: all engines */
#define GEN9_CMD_TYPE_RESERVED1 0x1u /* unused on Gen9 */
#define GEN9_CMD_TYPE_2D        0x2u /* blitter (BCS) */
#define GEN9_CMD_TYPE_3D        0x3u /* GFXPIPE: render (RCS) */

/* Total dwords = len field + 2 (PRM: "DWord Length ... Excludes DWord (0,1)"). */
#define GEN9_CMD_LEN_BIAS 2u

/* ---- MI commands (i915 MI_INSTR; PRM Vol 2a MI_*) ---- */
#define GEN9_MI_OPCODE_SHIFT   23
#define GEN9_MI_OPCODE_MASK    0x3Fu /* bits 28:23 */
#define GEN9_MI_INSTR(op, len) (((uint32_t)(op) << GEN9_MI_OPCODE_SHIFT) | (uint32_t)(len))
/* MI opcodes 0x00..0x0F are single-dword commands with no length field (i915 defines them
 * all as MI_INSTR(op, 0); GVT-g gives them F_LEN_CONST 1). */
#define GEN9_MI_SINGLE_DW_OPCODE_MAX 0x0Fu
/* Width of the DWord Length field differs per MI command (GVT-g cmd_parser.c len bits). */
#define GEN9_MI_LEN_MASK_DEFAULT 0xFFu /* bits 7:0 */

/* MI opcodes the scanner accepts (and the model executes). */
#define GEN9_MI_NOOP_OP               0x00u
#define GEN9_MI_USER_INTERRUPT_OP     0x02u
#define GEN9_MI_BATCH_BUFFER_END_OP   0x0Au
#define GEN9_MI_STORE_DATA_IMM_OP     0x20u
#define GEN9_MI_LOAD_REGISTER_IMM_OP  0x22u
#define GEN9_MI_STORE_REGISTER_MEM_OP 0x24u
#define GEN9_MI_FLUSH_DW_OP           0x26u
#define GEN9_MI_LOAD_REGISTER_MEM_OP  0x29u
#define GEN9_MI_BATCH_BUFFER_START_OP 0x31u

/* MI opcodes that exist on Gen9 but that a guest workload may not use: they touch global
 * state (GGTT, contexts, display, semaphores, the status page) or compute addresses the
 * scanner cannot check (MI_MATH, predicates, atomics).  Named so rejections can say which. */
#define GEN9_MI_SET_PREDICATE_OP        0x01u
#define GEN9_MI_WAIT_FOR_EVENT_OP       0x03u
#define GEN9_MI_ARB_CHECK_OP            0x05u
#define GEN9_MI_RS_CONTROL_OP           0x06u
#define GEN9_MI_REPORT_HEAD_OP          0x07u
#define GEN9_MI_ARB_ON_OFF_OP           0x08u
#define GEN9_MI_URB_ATOMIC_ALLOC_OP     0x09u
#define GEN9_MI_SUSPEND_FLUSH_OP        0x0Bu
#define GEN9_MI_PREDICATE_OP            0x0Cu
#define GEN9_MI_TOPOLOGY_FILTER_OP      0x0Du
#define GEN9_MI_SET_APPID_OP            0x0Eu
#define GEN9_MI_RS_CONTEXT_OP           0x0Fu
#define GEN9_MI_LOAD_SCAN_LINES_INCL_OP 0x12u
#define GEN9_MI_LOAD_SCAN_LINES_EXCL_OP 0x13u
#define GEN9_MI_DISPLAY_FLIP_OP         0x14u
#define GEN9_MI_SEMAPHORE_MBOX_OP       0x16u
#define GEN9_MI_SET_CONTEXT_OP          0x18u
#define GEN9_MI_MATH_OP                 0x1Au
#define GEN9_MI_SEMAPHORE_SIGNAL_OP     0x1Bu
#define GEN9_MI_SEMAPHORE_WAIT_OP       0x1Cu
#define GEN9_MI_STORE_DATA_INDEX_OP     0x21u
#define GEN9_MI_UPDATE_GTT_OP           0x23u
#define GEN9_MI_CLFLUSH_OP              0x27u
#define GEN9_MI_REPORT_PERF_COUNT_OP    0x28u
#define GEN9_MI_LOAD_REGISTER_REG_OP    0x2Au
#define GEN9_MI_RS_STORE_DATA_IMM_OP    0x2Bu
#define GEN9_MI_LOAD_URB_MEM_OP         0x2Cu
#define GEN9_MI_STORE_URB_MEM_OP        0x2Du
#define GEN9_MI_COPY_MEM_MEM_OP         0x2Eu
#define GEN9_MI_ATOMIC_OP               0x2Fu
#define GEN9_MI_CONDITIONAL_BB_END_OP   0x36u

/* MI_ARB_CHECK: 1 dw.  An arbitration point: with a newer execlist submission pending, the
 * engine switches to it here, inside a batch as well as in the ring (i915 puts one in every
 * request: gen8_emit_init_breadcrumb(), and its preemption tests spin on batches of them,
 * selftests/igt_spinner.c).  Guests of the kiosk profile may not use it (the scanner); the
 * hypervisor's own rings do.  MI_ARB_ON_OFF: 1 dw, bit 0 enables (1) or disables (0)
 * arbitration (i915 intel_gpu_commands.h MI_ARB_ENABLE/MI_ARB_DISABLE; every request's
 * breadcrumb and gen8_emit_bb_start_noarb() use both). */
#define GEN9_MI_ARB_CHECK  GEN9_MI_INSTR(GEN9_MI_ARB_CHECK_OP, 0)
#define GEN9_MI_ARB_ON_OFF GEN9_MI_INSTR(GEN9_MI_ARB_ON_OFF_OP, 0)
#define GEN9_MI_ARB_ENABLE (1u << 0)

/* MI_NOOP: 1 dw.  Bit 22 makes it write bits 21:0 to the NOPID register (harmless). */
#define GEN9_MI_NOOP          GEN9_MI_INSTR(GEN9_MI_NOOP_OP, 0)
#define GEN9_MI_NOOP_ID_WRITE (1u << 22)
#define GEN9_MI_NOOP_ID_MASK  0x3FFFFFu

/* MI_USER_INTERRUPT: 1 dw; raises the engine's user interrupt. */
#define GEN9_MI_USER_INTERRUPT GEN9_MI_INSTR(GEN9_MI_USER_INTERRUPT_OP, 0)

/* MI_BATCH_BUFFER_END: 1 dw; returns from a batch (to the ring or the calling batch). */
#define GEN9_MI_BATCH_BUFFER_END GEN9_MI_INSTR(GEN9_MI_BATCH_BUFFER_END_OP, 0)

/* MI_BATCH_BUFFER_START, Gen8+ form: 3 dw (i915 MI_BATCH_BUFFER_START_GEN8).
 *   dw0: bit 22 second-level batch (a call that returns; without it, a start issued from
 *        inside a batch chains: the current batch ends), bit 8 address space (0 = GGTT,
 *        1 = PPGTT; i915 gen8_emit_bb_start), 7:0 len field = 1.
 *   dw1: start address 31:2 (dword aligned), dw2: address 47:32 in 15:0. */
#define GEN9_MI_BATCH_BUFFER_START_LEN     3u
#define GEN9_MI_BATCH_BUFFER_START         GEN9_MI_INSTR(GEN9_MI_BATCH_BUFFER_START_OP, 1)
#define GEN9_MI_BB_START_SECOND_LEVEL      (1u << 22)
#define GEN9_MI_BB_START_ADD_OFFSET        (1u << 16)
#define GEN9_MI_BB_START_PREDICATION       (1u << 15)
#define GEN9_MI_BB_START_RESOURCE_STREAMER (1u << 10)
#define GEN9_MI_BB_START_PPGTT             (1u << 8)
#define GEN9_MI_BB_START_ADDR_MASK         0xFFFFFFFCu
#define GEN9_MI_BB_START_DW_ADDR_LO        1u
#define GEN9_MI_BB_START_DW_ADDR_HI        2u

/* MI_STORE_DATA_IMM, Gen8+ form (i915 MI_STORE_DWORD_IMM_GEN4 | MI_USE_GGTT).
 *   dw0: bit 22 use GGTT (else PPGTT), bit 21 store qword, 9:0 len field (10 bits, GVT-g):
 *        2 = one dword (4 dw total), 3 = one qword (5 dw total).
 *   dw1: address 31:2 (31:3 for a qword; bit 0 is "core mode", ignored for the address),
 *   dw2: address 47:32, dw3: data (low), dw4: data high (qword form). */
#define GEN9_MI_STORE_DATA_IMM_LEN_MASK 0x3FFu
#define GEN9_MI_STORE_DATA_IMM_DW_LEN   4u
#define GEN9_MI_STORE_DATA_IMM_QW_LEN   5u
#define GEN9_MI_STORE_DATA_IMM          GEN9_MI_INSTR(GEN9_MI_STORE_DATA_IMM_OP, 2)
#define GEN9_MI_STORE_QWORD_IMM \
    (GEN9_MI_INSTR(GEN9_MI_STORE_DATA_IMM_OP, 3) | GEN9_MI_SDI_STORE_QWORD)
#define GEN9_MI_SDI_USE_GGTT     (1u << 22)
#define GEN9_MI_SDI_STORE_QWORD  (1u << 21)
#define GEN9_MI_SDI_ADDR_MASK    0xFFFFFFFCu
#define GEN9_MI_SDI_QW_ADDR_MASK 0xFFFFFFF8u
#define GEN9_MI_SDI_DW_ADDR_LO   1u
#define GEN9_MI_SDI_DW_ADDR_HI   2u
#define GEN9_MI_SDI_DW_DATA_LO   3u
#define GEN9_MI_SDI_DW_DATA_HI   4u

/* MI_LOAD_REGISTER_IMM (i915 MI_LOAD_REGISTER_IMM(n)): 1 + 2n dw, len field = 2n - 1.
 *   dw0: bit 12 force posted, 11:8 byte write disables, 7:0 len field.
 *   then n pairs { register offset 22:2, value }. */
#define GEN9_MI_LOAD_REGISTER_IMM(n)  GEN9_MI_INSTR(GEN9_MI_LOAD_REGISTER_IMM_OP, 2 * (n)-1)
#define GEN9_MI_LRI_DW(n)             (1u + 2u * (uint32_t)(n))
#define GEN9_MI_LRI_FORCE_POSTED      (1u << 12)
#define GEN9_MI_LRI_BYTE_DISABLE_MASK (0xFu << 8)

/* Register offset operand of LRI/LRM/SRM: MMIO offset bits 22:2; other bits reserved. */
#define GEN9_MI_REG_OFFSET_MASK 0x007FFFFCu

/* MI_STORE_REGISTER_MEM, Gen8+ form: 4 dw (i915 MI_STORE_REGISTER_MEM_GEN8).
 *   dw0: bit 22 use GGTT, bit 21 predicate enable, len field 2.
 *   dw1: register offset 22:2, dw2: address 31:2, dw3: address 47:32.  Writes one dword. */
#define GEN9_MI_STORE_REGISTER_MEM GEN9_MI_INSTR(GEN9_MI_STORE_REGISTER_MEM_OP, 2)
#define GEN9_MI_SRM_LEN            4u
#define GEN9_MI_SRM_USE_GGTT       (1u << 22)
#define GEN9_MI_SRM_PREDICATE      (1u << 21)

/* MI_LOAD_REGISTER_MEM, Gen8+ form: 4 dw (i915 MI_LOAD_REGISTER_MEM_GEN8).
 *   dw0: bit 22 use GGTT, bit 21 async mode, len field 2.
 *   dw1: register offset 22:2, dw2: address 31:2, dw3: address 47:32.  Reads one dword. */
#define GEN9_MI_LOAD_REGISTER_MEM GEN9_MI_INSTR(GEN9_MI_LOAD_REGISTER_MEM_OP, 2)
#define GEN9_MI_LRM_LEN           4u
#define GEN9_MI_LRM_USE_GGTT      (1u << 22)
#define GEN9_MI_LRM_ASYNC         (1u << 21)

/* Shared by LRM and SRM. */
#define GEN9_MI_RM_DW_REG     1u
#define GEN9_MI_RM_DW_ADDR_LO 2u
#define GEN9_MI_RM_DW_ADDR_HI 3u
#define GEN9_MI_RM_ADDR_MASK  0xFFFFFFFCu

/* MI_FLUSH_DW (blitter and video engines only; render uses PIPE_CONTROL).
 * i915 MI_FLUSH_DW = MI_INSTR(0x26, 1); gen8_emit_flush_xcs emits the 4-dw form.
 *   dw0: bit 21 store data index (address is an offset in the status page), bit 18
 *        invalidate TLB, 15:14 post-sync op, bit 8 notify (interrupt), bit 7 invalidate
 *        video pipeline cache, 5:0 len field (6 bits, GVT-g): 2 = 4 dw (dword immediate
 *        data), 3 = 5 dw (qword immediate data).
 *   dw1: address 31:3, bit 2 destination address type (1 = GGTT), dw2: address 47:32,
 *   dw3: data low, dw4: data high (5-dw form). */
#define GEN9_MI_FLUSH_DW                GEN9_MI_INSTR(GEN9_MI_FLUSH_DW_OP, 2)
#define GEN9_MI_FLUSH_DW_LEN_MASK       0x3Fu
#define GEN9_MI_FLUSH_DW_DW_LEN         4u
#define GEN9_MI_FLUSH_DW_QW_LEN         5u
#define GEN9_MI_FLUSH_DW_STORE_INDEX    (1u << 21)
#define GEN9_MI_FLUSH_DW_INVALIDATE_TLB (1u << 18)
#define GEN9_MI_FLUSH_DW_OP_SHIFT       14
#define GEN9_MI_FLUSH_DW_OP_MASK        (3u << 14)
#define GEN9_MI_FLUSH_DW_OP_NONE        (0u << 14)
#define GEN9_MI_FLUSH_DW_OP_STOREDW     (1u << 14) /* write immediate data */
#define GEN9_MI_FLUSH_DW_OP_RESERVED    (2u << 14)
#define GEN9_MI_FLUSH_DW_OP_TIMESTAMP   (3u << 14) /* write a qword timestamp */
#define GEN9_MI_FLUSH_DW_NOTIFY         (1u << 8)
#define GEN9_MI_FLUSH_DW_INVALIDATE_BSD (1u << 7)
#define GEN9_MI_FLUSH_DW_USE_GTT        (1u << 2) /* in dw1 */
#define GEN9_MI_FLUSH_DW_ADDR_MASK      0xFFFFFFF8u
/* Address bit 5 must be zero (i915 gt/gen8_engine_cs.h gen8_emit_ggtt_write(): "w/a: bit 5
 * needs to be zero for MI_FLUSH_DW address"): the hardware may write elsewhere otherwise. */
#define GEN9_MI_FLUSH_DW_ADDR_MBZ   (1u << 5)
#define GEN9_MI_FLUSH_DW_DW_ADDR_LO 1u
#define GEN9_MI_FLUSH_DW_DW_ADDR_HI 2u
#define GEN9_MI_FLUSH_DW_DW_DATA_LO 3u
#define GEN9_MI_FLUSH_DW_DW_DATA_HI 4u

/* ---- 3D (GFXPIPE) commands: PRM Vol 2a; i915 GFX_OP_PIPE_CONTROL ---- */
#define GEN9_3D_SUBTYPE_SHIFT 27
#define GEN9_3D_SUBTYPE_MASK  0x3u /* bits 28:27 (command sub-type / pipeline) */
#define GEN9_3D_OPCODE_SHIFT  24
#define GEN9_3D_OPCODE_MASK   0x7u /* bits 26:24 */
#define GEN9_3D_SUBOP_SHIFT   16
#define GEN9_3D_SUBOP_MASK    0xFFu /* bits 23:16 */
#define GEN9_3D_LEN_MASK      0xFFu /* bits 7:0 */
#define GEN9_3D_INSTR(sub, op, subop, len) \
    ((GEN9_CMD_TYPE_3D << GEN9_CMD_TYPE_SHIFT) | ((uint32_t)(sub) << GEN9_3D_SUBTYPE_SHIFT) | \
     ((uint32_t)(op) << GEN9_3D_OPCODE_SHIFT) | ((uint32_t)(subop) << GEN9_3D_SUBOP_SHIFT) | \
     (uint32_t)(len))

/* PIPE_CONTROL, Gen8+ form: 6 dw (i915 GFX_OP_PIPE_CONTROL(6) = 0x7A000004).
 *   dw1: flags below.  Post-sync op 15:14: 0 none, 1 write immediate data (a qword:
 *        dw4..dw5), 2 write PS depth count (qword), 3 write timestamp (qword).
 *   dw2: address 31:2 (31:3 for qword writes), dw3: address 47:32, dw4/dw5: data. */
#define GEN9_PIPE_CONTROL_SUBTYPE 0x3u
#define GEN9_PIPE_CONTROL_OPCODE  0x2u
#define GEN9_PIPE_CONTROL_SUBOP   0x0u
#define GEN9_PIPE_CONTROL_LEN     6u
#define GEN9_PIPE_CONTROL \
    GEN9_3D_INSTR(GEN9_PIPE_CONTROL_SUBTYPE, GEN9_PIPE_CONTROL_OPCODE, GEN9_PIPE_CONTROL_SUBOP, \
                  GEN9_PIPE_CONTROL_LEN - GEN9_CMD_LEN_BIAS)
#define GEN9_PIPE_CONTROL_GLOBAL_GTT                   (1u << 24) /* destination address type */
#define GEN9_PIPE_CONTROL_LRI_POST_SYNC                (1u << 23) /* post-sync writes a register */
#define GEN9_PIPE_CONTROL_STORE_DATA_INDEX             (1u << 21) /* address = status-page offset */
#define GEN9_PIPE_CONTROL_CS_STALL                     (1u << 20)
#define GEN9_PIPE_CONTROL_TLB_INVALIDATE               (1u << 18)
#define GEN9_PIPE_CONTROL_POST_SYNC_SHIFT              14
#define GEN9_PIPE_CONTROL_POST_SYNC_MASK               (3u << 14)
#define GEN9_PIPE_CONTROL_POST_SYNC_NONE               (0u << 14)
#define GEN9_PIPE_CONTROL_WRITE_IMMEDIATE              (1u << 14) /* i915 PIPE_CONTROL_QW_WRITE */
#define GEN9_PIPE_CONTROL_WRITE_DEPTH_COUNT            (2u << 14)
#define GEN9_PIPE_CONTROL_WRITE_TIMESTAMP              (3u << 14)
#define GEN9_PIPE_CONTROL_DEPTH_STALL                  (1u << 13)
#define GEN9_PIPE_CONTROL_RENDER_TARGET_CACHE_FLUSH    (1u << 12)
#define GEN9_PIPE_CONTROL_INSTRUCTION_CACHE_INVALIDATE (1u << 11)
#define GEN9_PIPE_CONTROL_TEXTURE_CACHE_INVALIDATE     (1u << 10)
#define GEN9_PIPE_CONTROL_NOTIFY                       (1u << 8) /* raises the pipe-control interrupt */
#define GEN9_PIPE_CONTROL_FLUSH_ENABLE                 (1u << 7)
#define GEN9_PIPE_CONTROL_DC_FLUSH                     (1u << 5)
#define GEN9_PIPE_CONTROL_VF_CACHE_INVALIDATE          (1u << 4)
#define GEN9_PIPE_CONTROL_CONST_CACHE_INVALIDATE       (1u << 3)
#define GEN9_PIPE_CONTROL_STATE_CACHE_INVALIDATE       (1u << 2)
#define GEN9_PIPE_CONTROL_DEPTH_CACHE_FLUSH            (1u << 0)
/* With STORE_DATA_INDEX the address dword is an offset into the running context's
 * per-process status page (i915 gen8_emit_flush_rcs(): LRC_PPHWSP_SCRATCH_ADDR). */
#define GEN9_PIPE_CONTROL_INDEX_MASK      0x00000FFCu
#define GEN9_PIPE_CONTROL_POST_SYNC_BYTES 8u
#define GEN9_PIPE_CONTROL_ADDR_MASK       0xFFFFFFFCu
#define GEN9_PIPE_CONTROL_QW_ADDR_MASK    0xFFFFFFF8u /* qword post-sync: bits 2:0 ignored */
#define GEN9_PIPE_CONTROL_DW_FLAGS        1u
#define GEN9_PIPE_CONTROL_DW_ADDR_LO      2u
#define GEN9_PIPE_CONTROL_DW_ADDR_HI      3u
#define GEN9_PIPE_CONTROL_DW_DATA_LO      4u
#define GEN9_PIPE_CONTROL_DW_DATA_HI      5u

/* ---- Other GFXPIPE commands (type 3): the sub-type in 28:27 says which pipeline (PRM Vol 2a
 * "GFXPIPE"; i915 gvt/cmd_parser.c OP_3D_MEDIA(sub_type, opcode, sub_opcode)):
 *   0 common: STATE_BASE_ADDRESS, STATE_SIP, ... (length field 7:0)
 *   1 single dword: PIPELINE_SELECT, 3DSTATE_VF_STATISTICS (no length field)
 *   2 media/GPGPU: MEDIA_*_STATE, MEDIA_OBJECT*, GPGPU_WALKER (length field 15:0)
 *   3 3D: 3DSTATE_*, PIPE_CONTROL, 3DPRIMITIVE (length field 7:0, a few 8:0)
 * The engines have their own meanings for type 3: on the video engines they are MFX (decode)
 * and VEBOX commands.  drivers/igpu/gen9_gfxpipe.c holds the table of the render engine's. */
#define GEN9_GFXPIPE_COMMON    0x0u
#define GEN9_GFXPIPE_SINGLE_DW 0x1u
#define GEN9_GFXPIPE_MEDIA     0x2u
#define GEN9_GFXPIPE_3D        0x3u
#define GEN9_MEDIA_LEN_MASK    0xFFFFu

/* 3DPRIMITIVE, 7 dw (PRM Vol 2a; Mesa genxml gen9.xml): dw0 bit 10 indirect parameters (counts
 * from registers), bit 8 predicated; dw1 bit 8 random (indexed) vertex access, 5:0 topology
 * (on Gen8+ the topology in effect is 3DSTATE_VF_TOPOLOGY's); dw2 vertex count per instance,
 * dw3 start vertex, dw4 instance count, dw5 start instance, dw6 base vertex. */
#define GEN9_3DPRIMITIVE_OPCODE 0x3u
#define GEN9_3DPRIMITIVE_LEN    7u
#define GEN9_3DPRIMITIVE \
    GEN9_3D_INSTR(GEN9_GFXPIPE_3D, GEN9_3DPRIMITIVE_OPCODE, 0, \
                  GEN9_3DPRIMITIVE_LEN - GEN9_CMD_LEN_BIAS)
#define GEN9_3DPRIMITIVE_INDIRECT          (1u << 10)
#define GEN9_3DPRIMITIVE_PREDICATE         (1u << 8)
#define GEN9_3DPRIMITIVE_RANDOM_ACCESS     (1u << 8) /* in dw1 */
#define GEN9_3DPRIMITIVE_DW_VERTEX_COUNT   2u
#define GEN9_3DPRIMITIVE_DW_INSTANCE_COUNT 4u
/* 3DSTATE_VF_TOPOLOGY, 2 dw: dw1 5:0 the primitive topology (i915 gvt OP_3DSTATE_VF_TOPOLOGY). */
#define GEN9_3DSTATE_VF_TOPOLOGY_SUBOP 0x4Bu
#define GEN9_TOPOLOGY_MASK             0x3Fu
/* Primitive topologies (PRM "3D_Prim_Topo_Type"; Mesa genxml). */
#define GEN9_3DPRIM_POINTLIST         0x01u
#define GEN9_3DPRIM_LINELIST          0x02u
#define GEN9_3DPRIM_LINESTRIP         0x03u
#define GEN9_3DPRIM_TRILIST           0x04u
#define GEN9_3DPRIM_TRISTRIP          0x05u
#define GEN9_3DPRIM_TRIFAN            0x06u
#define GEN9_3DPRIM_QUADLIST          0x07u
#define GEN9_3DPRIM_QUADSTRIP         0x08u
#define GEN9_3DPRIM_LINELIST_ADJ      0x09u
#define GEN9_3DPRIM_LINESTRIP_ADJ     0x0Au
#define GEN9_3DPRIM_TRILIST_ADJ       0x0Bu
#define GEN9_3DPRIM_TRISTRIP_ADJ      0x0Cu
#define GEN9_3DPRIM_TRISTRIP_REVERSE  0x0Du
#define GEN9_3DPRIM_POLYGON           0x0Eu
#define GEN9_3DPRIM_RECTLIST          0x0Fu
#define GEN9_3DPRIM_LINELOOP          0x10u
#define GEN9_3DPRIM_POINTLIST_BF      0x11u
#define GEN9_3DPRIM_LINESTRIP_CONT    0x12u
#define GEN9_3DPRIM_LINESTRIP_BF      0x13u
#define GEN9_3DPRIM_LINESTRIP_CONT_BF 0x14u
#define GEN9_3DPRIM_TRIFAN_NOSTIPPLE  0x16u
#define GEN9_3DPRIM_PATCHLIST_1       0x20u
#define GEN9_3DPRIM_PATCHLIST_32      0x3Fu

/* ---- 2D (blitter) commands: PRM Vol 2a XY_*_BLT; i915 XY_COLOR_BLT_CMD etc. ---- */
#define GEN9_2D_OPCODE_SHIFT 22
#define GEN9_2D_OPCODE_MASK  0x7Fu /* bits 28:22 */
#define GEN9_2D_LEN_MASK     0xFFu /* bits 7:0 */
#define GEN9_2D_INSTR(op, len) \
    ((GEN9_CMD_TYPE_2D << GEN9_CMD_TYPE_SHIFT) | ((uint32_t)(op) << GEN9_2D_OPCODE_SHIFT) | \
     (uint32_t)(len))
/* dw0 flags common to the XY_ blits (i915 BLT_WRITE_A/RGB, XY_SRC_COPY_BLT_*_TILED). */
#define GEN9_BLT_WRITE_ALPHA (1u << 21) /* 32 bpp byte mask: alpha channel */
#define GEN9_BLT_WRITE_RGB   (1u << 20) /* 32 bpp byte mask: colour channels */
#define GEN9_BLT_WRITE_RGBA  (GEN9_BLT_WRITE_ALPHA | GEN9_BLT_WRITE_RGB)
#define GEN9_BLT_SRC_TILED   (1u << 15) /* pitch in dwords, tiling from BCS_SWCTRL */
#define GEN9_BLT_DST_TILED   (1u << 11)

#define GEN9_XY_COLOR_BLT_OP      0x50u
#define GEN9_XY_SRC_COPY_BLT_OP   0x53u
#define GEN9_XY_SETUP_BLT_OP      0x01u /* not accepted: named for rejections */
#define GEN9_XY_SETUP_CLIP_BLT_OP 0x03u /* not accepted: named for rejections */
#define GEN9_XY_FAST_COPY_BLT_OP  0x42u /* not accepted: named for rejections */

/* XY_COLOR_BLT, Gen8+ form: 7 dw = 0x54300005 with RGBA written.
 *   dw1 BR13, dw2 BR22 (dst y1:x1), dw3 BR23 (dst y2:x2, exclusive), dw4/dw5 destination
 *   address 31:0 / 47:32, dw6 solid colour. */
#define GEN9_XY_COLOR_BLT_LEN 7u
#define GEN9_XY_COLOR_BLT \
    (GEN9_2D_INSTR(GEN9_XY_COLOR_BLT_OP, GEN9_XY_COLOR_BLT_LEN - GEN9_CMD_LEN_BIAS) | \
     GEN9_BLT_WRITE_RGBA)
#define GEN9_XY_COLOR_BLT_DW_BR13         1u
#define GEN9_XY_COLOR_BLT_DW_DST_TOPLEFT  2u
#define GEN9_XY_COLOR_BLT_DW_DST_BOTRIGHT 3u
#define GEN9_XY_COLOR_BLT_DW_DST_LO       4u
#define GEN9_XY_COLOR_BLT_DW_DST_HI       5u
#define GEN9_XY_COLOR_BLT_DW_COLOR        6u

/* XY_SRC_COPY_BLT, Gen8+ form: 10 dw = 0x54F00008 with RGBA written.
 *   dw1 BR13, dw2 BR22, dw3 BR23, dw4/dw5 destination address, dw6 BR26 (src y1:x1),
 *   dw7 BR11 (source pitch 15:0), dw8/dw9 source address. */
#define GEN9_XY_SRC_COPY_BLT_LEN 10u
#define GEN9_XY_SRC_COPY_BLT \
    (GEN9_2D_INSTR(GEN9_XY_SRC_COPY_BLT_OP, GEN9_XY_SRC_COPY_BLT_LEN - GEN9_CMD_LEN_BIAS) | \
     GEN9_BLT_WRITE_RGBA)
#define GEN9_XY_SRC_COPY_BLT_DW_BR13         1u
#define GEN9_XY_SRC_COPY_BLT_DW_DST_TOPLEFT  2u
#define GEN9_XY_SRC_COPY_BLT_DW_DST_BOTRIGHT 3u
#define GEN9_XY_SRC_COPY_BLT_DW_DST_LO       4u
#define GEN9_XY_SRC_COPY_BLT_DW_DST_HI       5u
#define GEN9_XY_SRC_COPY_BLT_DW_SRC_TOPLEFT  6u
#define GEN9_XY_SRC_COPY_BLT_DW_SRC_PITCH    7u
#define GEN9_XY_SRC_COPY_BLT_DW_SRC_LO       8u
#define GEN9_XY_SRC_COPY_BLT_DW_SRC_HI       9u

/* BR13 (PRM Vol 2d "BR13 - BLT Raster OP, Color Depth, and Pitch"):
 *   15:0 destination pitch, signed, in bytes (in dwords when the surface is tiled),
 *   23:16 raster operation, 25:24 colour depth, bit 30 clipping enable. */
#define GEN9_BR13_PITCH_MASK    0xFFFFu
#define GEN9_BR13_ROP_SHIFT     16
#define GEN9_BR13_ROP_MASK      (0xFFu << 16)
#define GEN9_BR13_DEPTH_SHIFT   24
#define GEN9_BR13_DEPTH_MASK    (3u << 24)
#define GEN9_BR13_DEPTH_8       (0u << 24) /* i915 BLT_DEPTH_8 */
#define GEN9_BR13_DEPTH_16_565  (1u << 24) /* i915 BLT_DEPTH_16_565 */
#define GEN9_BR13_DEPTH_16_1555 (2u << 24) /* i915 BLT_DEPTH_16_1555 */
#define GEN9_BR13_DEPTH_32      (3u << 24) /* i915 BLT_DEPTH_32 */
#define GEN9_BR13_CLIP_ENABLE   (1u << 30)
#define GEN9_ROP_SRC_COPY       0xCCu /* i915 BLT_ROP_SRC_COPY: D = S */
#define GEN9_ROP_PAT_COPY       0xF0u /* i915 BLT_ROP_COLOR_COPY: D = P (solid) */
#define GEN9_BR13_ROP(rop)      ((uint32_t)(rop) << GEN9_BR13_ROP_SHIFT)
/* BR11 (source pitch): 15:0, signed, bytes (dwords when tiled). */
#define GEN9_BR11_PITCH_MASK 0xFFFFu
/* BR22/BR23/BR26 coordinates: Y in 31:16, X in 15:0, both signed 16-bit; (x2, y2) is
 * exclusive (the pixel at x2 is not written). */
#define GEN9_BLT_COORD_Y_SHIFT 16
#define GEN9_BLT_COORD_MASK    0xFFFFu
#define GEN9_BLT_COORD(x, y) \
    ((((uint32_t)(y)&GEN9_BLT_COORD_MASK) << GEN9_BLT_COORD_Y_SHIFT) | \
     ((uint32_t)(x)&GEN9_BLT_COORD_MASK))
/* Tiles (PRM Vol 5 "Memory Views"): X tile 512 B x 8 rows, Y tile 128 B x 32 rows.  Which one
 * a tiled blit uses is chosen by BCS_SWCTRL, which the command does not carry. */
#define GEN9_TILE_X_ROWS 8u
#define GEN9_TILE_Y_ROWS 32u
#define GEN9_TILE_BYTES  4096u

/* 48-bit graphics addresses (see the top of the file). */
#define GEN9_ADDR_HI_MASK     0xFFFFu
#define GEN9_ADDR_HI_RESERVED 0xFFFF0000u
#define GEN9_GM_ADDR_BITS     48

/* ---- Decoding helpers ---- */
static inline uint32_t gen9_cmd_type(uint32_t hdr)
{
    return (hdr >> GEN9_CMD_TYPE_SHIFT) & GEN9_CMD_TYPE_MASK;
}

static inline uint32_t gen9_mi_opcode(uint32_t hdr)
{
    return (hdr >> GEN9_MI_OPCODE_SHIFT) & GEN9_MI_OPCODE_MASK;
}

static inline uint32_t gen9_2d_opcode(uint32_t hdr)
{
    return (hdr >> GEN9_2D_OPCODE_SHIFT) & GEN9_2D_OPCODE_MASK;
}

static inline uint32_t gen9_3d_subtype(uint32_t hdr)
{
    return (hdr >> GEN9_3D_SUBTYPE_SHIFT) & GEN9_3D_SUBTYPE_MASK;
}

static inline uint32_t gen9_3d_opcode(uint32_t hdr)
{
    return (hdr >> GEN9_3D_OPCODE_SHIFT) & GEN9_3D_OPCODE_MASK;
}

static inline uint32_t gen9_3d_subop(uint32_t hdr)
{
    return (hdr >> GEN9_3D_SUBOP_SHIFT) & GEN9_3D_SUBOP_MASK;
}

static inline bool gen9_is_pipe_control(uint32_t hdr)
{
    return gen9_cmd_type(hdr) == GEN9_CMD_TYPE_3D &&
           gen9_3d_subtype(hdr) == GEN9_PIPE_CONTROL_SUBTYPE &&
           gen9_3d_opcode(hdr) == GEN9_PIPE_CONTROL_OPCODE &&
           gen9_3d_subop(hdr) == GEN9_PIPE_CONTROL_SUBOP;
}

/* Width of the DWord Length field of an MI command (GVT-g cmd_parser.c). */
static inline uint32_t gen9_mi_len_mask(uint32_t opcode)
{
    switch (opcode) {
    case GEN9_MI_STORE_DATA_IMM_OP:
        return GEN9_MI_STORE_DATA_IMM_LEN_MASK;
    case GEN9_MI_FLUSH_DW_OP:
        return GEN9_MI_FLUSH_DW_LEN_MASK;
    default:
        return GEN9_MI_LEN_MASK_DEFAULT;
    }
}

/* Total length in dwords of the command whose header is hdr, as its length field says.
 * MI opcodes 0x00..0x0F are one dword.  Returns 0 for the reserved types (1, 4..7), whose
 * length cannot be known. */
static inline uint32_t gen9_cmd_length_dw(uint32_t hdr)
{
    switch (gen9_cmd_type(hdr)) {
    case GEN9_CMD_TYPE_MI: {
        uint32_t op = gen9_mi_opcode(hdr);
        if (op <= GEN9_MI_SINGLE_DW_OPCODE_MAX)
            return 1;
        return (hdr & gen9_mi_len_mask(op)) + GEN9_CMD_LEN_BIAS;
    }
    case GEN9_CMD_TYPE_2D:
        return (hdr & GEN9_2D_LEN_MASK) + GEN9_CMD_LEN_BIAS;
    case GEN9_CMD_TYPE_3D:
        /* Render-engine meanings (the video engines' MFX/VEBOX commands are not decoded). */
        switch (gen9_3d_subtype(hdr)) {
        case GEN9_GFXPIPE_SINGLE_DW:
            return 1;
        case GEN9_GFXPIPE_MEDIA:
            return (hdr & GEN9_MEDIA_LEN_MASK) + GEN9_CMD_LEN_BIAS;
        default:
            return (hdr & GEN9_3D_LEN_MASK) + GEN9_CMD_LEN_BIAS;
        }
    default:
        return 0;
    }
}

/* A 48-bit graphics address from its low and high dwords, with the low bits the hardware
 * ignores (lo_mask clears them) removed.  Reserved high bits are the caller's to check. */
static inline uint64_t gen9_gm_addr(uint32_t lo, uint32_t hi, uint32_t lo_mask)
{
    return ((uint64_t)(hi & GEN9_ADDR_HI_MASK) << 32) | (lo & lo_mask);
}

/* Bytes per pixel for a BR13 colour depth (8 bpp, 565, 1555, 32 bpp). */
static inline uint32_t gen9_br13_bpp(uint32_t br13)
{
    switch (br13 & GEN9_BR13_DEPTH_MASK) {
    case GEN9_BR13_DEPTH_8:
        return 1;
    case GEN9_BR13_DEPTH_16_565:
        return 2;
    case GEN9_BR13_DEPTH_16_1555:
        return 2;
    default:
        return 4;
    }
}

static inline int32_t gen9_br13_pitch(uint32_t br13)
{
    return (int16_t)(br13 & GEN9_BR13_PITCH_MASK);
}

static inline uint32_t gen9_br13_rop(uint32_t br13)
{
    return (br13 & GEN9_BR13_ROP_MASK) >> GEN9_BR13_ROP_SHIFT;
}

static inline int32_t gen9_blt_x(uint32_t coord)
{
    return (int16_t)(coord & GEN9_BLT_COORD_MASK);
}

static inline int32_t gen9_blt_y(uint32_t coord)
{
    return (int16_t)((coord >> GEN9_BLT_COORD_Y_SHIFT) & GEN9_BLT_COORD_MASK);
}

#endif /* TESSERA_DRIVERS_IGPU_GEN9_CMD_H */
