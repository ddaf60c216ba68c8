/*
 * Internals of the MI-only command streamer shared by its files: the run state (where the
 * engine is: ring or batch level, the command being executed) and the helpers every command
 * uses (operand fetch, memory access split at pages, faults).
 */
#ifndef TESSERA_DRIVERS_IGPU_CS_CS_INTERNAL_H
#define TESSERA_DRIVERS_IGPU_CS_CS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/igpu/cs/cs.h"

/* Batch levels: 0 is the ring, 1 a first-level batch, 2 a second-level one (Gen9 has two). */
#define CS_MAX_LEVEL    2u
/* Dwords of a command fetched whole: the longest one whose operands are all read at once
 * (3DPRIMITIVE).  Longer commands (LRI, skipped state) are read piece by piece. */
#define CS_CMD_DW       8u

struct cs_batch {
    enum igpu_cs_space space;
    uint64_t pos;                   /* graphics address of the next command */
};

struct cs_run {
    const struct igpu_cs_config *cfg;
    const struct igpu_cs_ops *ops;
    const struct igpu_cs_ring *ring;
    struct igpu_cs_result *res;
    unsigned level;
    uint32_t ring_pos;              /* byte offset of the next ring command */
    struct cs_batch bb[CS_MAX_LEVEL + 1u];   /* [1], [2]: the batches being executed */
    uint32_t topology;              /* last 3DSTATE_VF_TOPOLOGY, or GEN9_TOPOLOGY_UNKNOWN */
    /* The command being executed. */
    uint32_t hdr;
    uint32_t len;                   /* total dwords */
    uint64_t cmd_gaddr;
    enum igpu_cs_space cmd_space;
    uint32_t dw[CS_CMD_DW];         /* its first min(len, CS_CMD_DW) dwords */
};

/* Stop the engine: the first fault sticks.  `what` is the reason after the command's name. */
bool cs_fault(struct cs_run *r, enum igpu_cs_fault f, uint64_t detail, const char *what);
/* Dword i (0 = header) of the current command, fetched through the memory callback. */
bool cs_fetch(struct cs_run *r, uint32_t i, uint32_t *val);
/* Read or write graphics memory, one callback per page; faults the engine on refusal. */
bool cs_mem(struct cs_run *r, enum igpu_cs_space space, uint64_t gaddr, void *buf, uint32_t len,
            bool write);
/* A 48-bit operand from dwords lo/hi with the low bits the hardware ignores (~lo_mask)
 * dropped; faults on reserved high bits. */
bool cs_addr(struct cs_run *r, uint32_t lo, uint32_t hi, uint32_t lo_mask, uint64_t *out);
/* Faults if `space` is PPGTT and the context has none. */
bool cs_space_ok(struct cs_run *r, enum igpu_cs_space space);
/* Faults unless the register is in the allow-list for access (IGPU_SCAN_REG_*). */
bool cs_reg_allowed(struct cs_run *r, uint32_t reg, uint32_t access);

/* Command handlers (cs_cmds.c), each executing r->hdr with r->dw filled. */
bool cs_exec_mi(struct cs_run *r);
bool cs_exec_gfxpipe(struct cs_run *r);
/* MI_BATCH_BUFFER_START / END (cs_exec.c: they move the engine). */
bool cs_bb_start(struct cs_run *r);
bool cs_bb_end(struct cs_run *r);

#endif /* TESSERA_DRIVERS_IGPU_CS_CS_INTERNAL_H */
