/*
 * A batch with the command sequence of i915 6.1's Skylake golden render state
 * (gt/gen9_renderstate.c gen9_null_state, as decoded: the identity and length of each command;
 * payloads zero except the topology and the final draw, one vertex of a triangle list), built
 * with Tessera's encodings.  For the tests of the MI-only streamer and the scanner.
 */
#ifndef TEST_I915_NULL_STATE_H
#define TEST_I915_NULL_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "drivers/igpu/gen9_cmd.h"

static const struct {
    uint8_t sub, op, subop, len;
} i915_null_state_cmds[] = {
    { 3, 2, 0x00, 6 },  { 1, 1, 0x04, 1 },  { 3, 0, 0x14, 2 },   { 3, 0, 0x20, 12 },
    { 3, 0, 0x13, 4 },  { 3, 0, 0x1F, 6 },  { 3, 0, 0x51, 11 },  { 3, 0, 0x10, 9 },
    { 3, 0, 0x1B, 9 },  { 3, 0, 0x11, 10 }, { 3, 0, 0x1E, 5 },   { 3, 0, 0x1D, 11 },
    { 3, 0, 0x12, 4 },  { 3, 0, 0x50, 5 },  { 3, 0, 0x1C, 4 },   { 3, 0, 0x0C, 2 },
    { 3, 0, 0x52, 5 },  { 3, 0, 0x30, 2 },  { 3, 0, 0x31, 2 },   { 3, 0, 0x32, 2 },
    { 3, 0, 0x33, 2 },  { 3, 1, 0x19, 4 },  { 3, 1, 0x1A, 4 },   { 3, 1, 0x1B, 4 },
    { 3, 1, 0x12, 2 },  { 3, 1, 0x13, 2 },  { 3, 1, 0x14, 2 },   { 3, 1, 0x15, 2 },
    { 3, 1, 0x16, 2 },  { 3, 0, 0x15, 11 }, { 3, 0, 0x19, 11 },  { 3, 0, 0x1A, 11 },
    { 3, 0, 0x16, 11 }, { 3, 0, 0x17, 11 }, { 3, 0, 0x49, 3 },   { 3, 0, 0x4A, 2 },
    { 3, 0, 0x4B, 2 },  { 3, 1, 0x17, 3 },  { 3, 1, 0x18, 8 },   { 3, 1, 0x18, 8 },
    { 3, 1, 0x18, 8 },  { 3, 1, 0x18, 8 },  { 0, 1, 0x01, 19 },  { 0, 1, 0x02, 3 },
    { 3, 1, 0x00, 4 },  { 3, 0, 0x05, 8 },  { 3, 1, 0x04, 4 },   { 3, 1, 0x04, 4 },
    { 3, 1, 0x04, 4 },  { 3, 1, 0x04, 4 },  { 3, 1, 0x08, 3 },   { 3, 1, 0x0A, 3 },
    { 3, 0, 0x06, 5 },  { 3, 0, 0x07, 5 },  { 3, 0, 0x04, 3 },   { 3, 1, 0x11, 2 },
    { 3, 0, 0x0D, 2 },  { 3, 1, 0x06, 2 },  { 3, 1, 0x07, 33 },  { 3, 1, 0x02, 17 },
    { 3, 1, 0x0C, 17 }, { 3, 0, 0x0A, 5 },  { 3, 0, 0x08, 133 }, { 3, 0, 0x09, 69 },
    { 3, 0, 0x55, 5 },  { 1, 0, 0x0B, 1 },  { 3, 0, 0x0E, 2 },   { 3, 0, 0x24, 2 },
    { 3, 0, 0x4F, 2 },  { 3, 0, 0x4D, 2 },  { 3, 0, 0x2B, 2 },   { 3, 0, 0x2C, 2 },
    { 3, 0, 0x2D, 2 },  { 3, 0, 0x2E, 2 },  { 3, 0, 0x2F, 2 },   { 3, 0, 0x0F, 2 },
    { 3, 0, 0x23, 2 },  { 3, 0, 0x21, 2 },  { 3, 0, 0x26, 2 },   { 3, 0, 0x27, 2 },
    { 3, 0, 0x28, 2 },  { 3, 0, 0x29, 2 },  { 3, 0, 0x2A, 2 },   { 3, 3, 0x00, 7 },
};

#define I915_NULL_STATE_MAX_DW 1024u

/* Writes the batch (ending with MI_BATCH_BUFFER_END) into dw; returns its dwords.  *skipped
 * receives how many of its commands an MI-only engine skips (all but the PIPE_CONTROL). */
static inline size_t i915_null_state(uint32_t *dw, unsigned *skipped)
{
    size_t at = 0;
    *skipped = 0;
    for (size_t i = 0; i < sizeof i915_null_state_cmds / sizeof i915_null_state_cmds[0]; i++) {
        uint32_t len = i915_null_state_cmds[i].len;
        uint32_t hdr = GEN9_3D_INSTR(i915_null_state_cmds[i].sub, i915_null_state_cmds[i].op,
                                     i915_null_state_cmds[i].subop, 0);
        if (i915_null_state_cmds[i].sub != GEN9_GFXPIPE_SINGLE_DW)
            hdr |= len - GEN9_CMD_LEN_BIAS;
        dw[at] = hdr;
        for (uint32_t k = 1; k < len; k++)
            dw[at + k] = 0;
        if (i915_null_state_cmds[i].sub == 3 && i915_null_state_cmds[i].op == 0 &&
            i915_null_state_cmds[i].subop == GEN9_3DSTATE_VF_TOPOLOGY_SUBOP)
            dw[at + 1] = GEN9_3DPRIM_TRILIST;
        if (hdr == GEN9_3DPRIMITIVE) {
            dw[at + 1] = GEN9_3DPRIM_TRILIST;
            dw[at + GEN9_3DPRIMITIVE_DW_VERTEX_COUNT] = 1;
            dw[at + GEN9_3DPRIMITIVE_DW_INSTANCE_COUNT] = 1;
        }
        if (!gen9_is_pipe_control(hdr))
            (*skipped)++;
        at += len;
    }
    dw[at++] = GEN9_MI_BATCH_BUFFER_END;
    return at;
}

#endif /* TEST_I915_NULL_STATE_H */
