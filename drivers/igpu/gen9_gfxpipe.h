/*
 * The render engine's GFXPIPE commands (type 3) Tessera knows by name: the 3D and media STATE
 * commands an MI-only command streamer may decode and skip, the draws and walkers it refuses,
 * and the rule that says when a 3DPRIMITIVE provably draws nothing.
 *
 * Which commands are state: every command of i915's Gen9 golden render state
 * (gt/gen9_renderstate.c gen9_null_state, emitted by intel_renderstate_emit() in
 * __engines_record_defaults()), a few more pure 3D state commands, and the media pipeline's
 * state.  None of them writes memory or a register outside the 3D/media pipeline: without a
 * draw or a walker nothing visible changes.  (The binding-table edits are not state in that
 * sense: the resource streamer writes the binding table into memory at once, so they are
 * listed to be refused by name.)  Encodings: PRM Vol 2a "GFXPIPE", i915 gvt/cmd_parser.c
 * OP_3D_MEDIA(), Mesa genxml gen9.xml (lengths).
 *
 * Shared by the software command streamer (drivers/igpu/cs/) and the scanner, so both agree on
 * every decision.
 */
#ifndef TESSERA_DRIVERS_IGPU_GEN9_GFXPIPE_H
#define TESSERA_DRIVERS_IGPU_GEN9_GFXPIPE_H

#include <stdbool.h>
#include <stdint.h>

enum gen9_gfxpipe_kind {
    GEN9_GFX_STATE = 1,     /* 3D or common state: skipped */
    GEN9_GFX_MEDIA_STATE,   /* media pipeline state: skipped */
    GEN9_GFX_PIPE_CONTROL,  /* a command of its own (post-sync writes) */
    GEN9_GFX_DRAW,          /* 3DPRIMITIVE: refused unless it provably draws nothing */
    GEN9_GFX_MEDIA_OBJECT,  /* MEDIA_OBJECT*: runs kernels, refused */
    GEN9_GFX_GPGPU_WALKER,  /* GPGPU_WALKER: runs kernels, refused */
    GEN9_GFX_WRITES_MEMORY, /* state with an immediate memory write: refused */
};

struct gen9_gfxpipe_cmd {
    const char *name;
    uint8_t subtype, opcode, subop;
    uint8_t kind;              /* enum gen9_gfxpipe_kind */
    uint16_t len_min, len_max; /* total dwords, inclusive */
};

/* The render engine's meaning of a type-3 header, or NULL if Tessera does not know it. */
const struct gen9_gfxpipe_cmd *gen9_gfxpipe_lookup(uint32_t hdr);

/* Vertices one primitive of a topology needs (PRM "3D_Prim_Topo_Type"); 0 for a value that is
 * not a topology. */
unsigned gen9_topology_min_vertices(uint32_t topology);

/* No topology has been set by 3DSTATE_VF_TOPOLOGY in what was decoded so far. */
#define GEN9_TOPOLOGY_UNKNOWN 0xFFFFFFFFu

/*
 * True if the 3DPRIMITIVE cmd[0..7) draws nothing, whatever the rest of the 3D state: it takes
 * its counts from the command (not indirect), is not predicated, and either has no vertices or
 * fewer than one primitive of the topology in effect needs (`topology`, the last
 * 3DSTATE_VF_TOPOLOGY, or GEN9_TOPOLOGY_UNKNOWN).  The vertex fetcher drops such dangling
 * vertices before any shader runs (PRM Vol 7 "Vertex Fetch": dangling-vertex removal).  i915's
 * golden render state ends with exactly such a draw: one vertex of a triangle list.
 */
bool gen9_3dprimitive_draws_nothing(const uint32_t *cmd, uint32_t topology);

#endif /* TESSERA_DRIVERS_IGPU_GEN9_GFXPIPE_H */
