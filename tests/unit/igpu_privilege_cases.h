/*
 * The GPU's privilege rule, command by command: what a batch started through the PPGTT (a
 * user batch, non-privileged) may not do is dropped and the batch goes on (drivers/igpu/cs/
 * cs_priv.c has the rule and its sources).  One table, run on both engines that execute it in
 * software: the model (test_igpu_privilege_model.c) and the i915 guest's MI-only streamer
 * (test_igpu_privilege_cs.c).
 *
 * Each case is the start of a user batch; the harness appends a PPGTT store of PRIV_MARKER
 * (the batch went on after a dropped command) and MI_BATCH_BUFFER_END, runs it from the ring,
 * and checks what it saw against the case: GGTT memory and the context's status page
 * untouched, the registers as expected, how many commands were dropped, no fault.
 * Include it after cmocka.h.
 */
#ifndef TESSERA_TESTS_UNIT_IGPU_PRIVILEGE_CASES_H
#define TESSERA_TESTS_UNIT_IGPU_PRIVILEGE_CASES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "drivers/igpu/gen9_cmd.h"

#define PRIV_SENTINEL   0x5E5E5E5Eu /* GGTT victim qwords and the status-page scratch */
#define PRIV_GPR0       0x00C0FFEEu /* GPR0 before the batch */
#define PRIV_PP_VALUE   0x0000ABCDu /* PPGTT data dword 0, what LRM loads */
#define PRIV_MARKER     0x600DF00Du /* the batch's last store, at pp_data + PRIV_MARKER_OFF */
#define PRIV_CALLEE     0xCA11EE00u /* the callee's store, at pp_data + PRIV_CALLEE_OFF */
#define PRIV_MARKER_OFF 0x100u
#define PRIV_CALLEE_OFF 0x200u
#define PRIV_PC_OFF     0x40u /* a PPGTT PIPE_CONTROL post-sync lands here */
#define PRIV_SCRATCH    0xD0u /* i915 LRC_PPHWSP_SCRATCH_ADDR: the index forms' slot */

/* Where the harness put things. */
struct priv_env {
    uint64_t victim;    /* GGTT: qwords at +0, +8, +0x10 hold PRIV_SENTINEL */
    uint64_t pp_data;   /* PPGTT: the batch's data page */
    uint64_t pp_callee; /* PPGTT only (no GGTT page there): a callee batch that stores
                             * PRIV_CALLEE through the PPGTT, then tries victim + 0x10 */
    uint32_t gpr0;      /* the engine's GPR0 */
    uint32_t priv_reg;  /* a register of the engine a user batch may not write */
};

enum priv_engine { PRIV_ANY, PRIV_RENDER, PRIV_XCS /* MI_FLUSH_DW's engines */ };

struct priv_case {
    const char *name;
    enum priv_engine where;
    unsigned (*emit)(const struct priv_env *e, uint32_t *c);
    unsigned dropped;        /* commands or post-syncs dropped */
    uint32_t gpr0;           /* GPR0 afterwards */
    uint32_t pp_off, pp_val; /* a PPGTT dword the batch writes (pp_off 0: none) */
};

/* What the harness saw after the run. */
struct priv_seen {
    bool faulted;
    const char *why;
    uint64_t victim[3];
    uint64_t scratch;
    uint32_t marker, pp_val;
    uint32_t gpr0;
    bool priv_reg_changed;
    uint64_t dropped;
};

static inline uint32_t priv_lo(uint64_t a)
{
    return (uint32_t)a;
}
static inline uint32_t priv_hi(uint64_t a)
{
    return (uint32_t)(a >> 32);
}

static unsigned emit_sdi_ggtt(const struct priv_env *e, uint32_t *c)
{
    const uint32_t d[] = { GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT, priv_lo(e->victim),
                           priv_hi(e->victim), 0xBAD };
    memcpy(c, d, sizeof d);
    return 4;
}

static unsigned emit_sdi_ggtt_qword(const struct priv_env *e, uint32_t *c)
{
    const uint32_t d[] = { GEN9_MI_STORE_QWORD_IMM | GEN9_MI_SDI_USE_GGTT, priv_lo(e->victim + 8),
                           priv_hi(e->victim), 0xBAD, 0xBAD };
    memcpy(c, d, sizeof d);
    return 5;
}

static unsigned emit_srm_ggtt(const struct priv_env *e, uint32_t *c)
{
    const uint32_t d[] = { GEN9_MI_STORE_REGISTER_MEM | GEN9_MI_SRM_USE_GGTT, e->gpr0,
                           priv_lo(e->victim), priv_hi(e->victim) };
    memcpy(c, d, sizeof d);
    return 4;
}

static unsigned emit_lrm_ggtt(const struct priv_env *e, uint32_t *c)
{
    const uint32_t d[] = { GEN9_MI_LOAD_REGISTER_MEM | GEN9_MI_LRM_USE_GGTT, e->gpr0,
                           priv_lo(e->victim), priv_hi(e->victim) };
    memcpy(c, d, sizeof d);
    return 4;
}

static unsigned emit_lrm_priv_reg(const struct priv_env *e, uint32_t *c)
{
    const uint32_t d[] = { GEN9_MI_LOAD_REGISTER_MEM, e->priv_reg, priv_lo(e->pp_data),
                           priv_hi(e->pp_data) };
    memcpy(c, d, sizeof d);
    return 4;
}

static unsigned emit_lrm_gpr(const struct priv_env *e, uint32_t *c)
{
    const uint32_t d[] = { GEN9_MI_LOAD_REGISTER_MEM, e->gpr0, priv_lo(e->pp_data),
                           priv_hi(e->pp_data) };
    memcpy(c, d, sizeof d);
    return 4;
}

/* One register outside the user-mode list makes the whole LRI a no-op: GPR0 stays too. */
static unsigned emit_lri_priv_reg(const struct priv_env *e, uint32_t *c)
{
    const uint32_t d[] = { GEN9_MI_LOAD_REGISTER_IMM(2), e->gpr0, 0xBAD, e->priv_reg, 0xBAD };
    memcpy(c, d, sizeof d);
    return 5;
}

static unsigned emit_lri_gpr(const struct priv_env *e, uint32_t *c)
{
    const uint32_t d[] = { GEN9_MI_LOAD_REGISTER_IMM(1), e->gpr0, 0x1234 };
    memcpy(c, d, sizeof d);
    return 3;
}

static unsigned emit_pc(uint32_t *c, uint32_t flags, uint64_t addr)
{
    const uint32_t d[] = { GEN9_PIPE_CONTROL,
                           GEN9_PIPE_CONTROL_CS_STALL | flags,
                           priv_lo(addr),
                           priv_hi(addr),
                           0xBAD,
                           0xBAD };
    memcpy(c, d, sizeof d);
    return 6;
}

static unsigned emit_pc_ggtt(const struct priv_env *e, uint32_t *c)
{
    return emit_pc(c, GEN9_PIPE_CONTROL_WRITE_IMMEDIATE | GEN9_PIPE_CONTROL_GLOBAL_GTT, e->victim);
}

static unsigned emit_pc_ggtt_timestamp(const struct priv_env *e, uint32_t *c)
{
    return emit_pc(c, GEN9_PIPE_CONTROL_WRITE_TIMESTAMP | GEN9_PIPE_CONTROL_GLOBAL_GTT,
                   e->victim + 8);
}

static unsigned emit_pc_index(const struct priv_env *e, uint32_t *c)
{
    (void)e;
    return emit_pc(c, GEN9_PIPE_CONTROL_WRITE_IMMEDIATE | GEN9_PIPE_CONTROL_STORE_DATA_INDEX,
                   PRIV_SCRATCH);
}

static unsigned emit_pc_ppgtt(const struct priv_env *e, uint32_t *c)
{
    unsigned n = emit_pc(c, GEN9_PIPE_CONTROL_WRITE_IMMEDIATE, e->pp_data + PRIV_PC_OFF);
    c[GEN9_PIPE_CONTROL_DW_DATA_LO] = 0x9C9C9C9Cu;
    return n;
}

static unsigned emit_flush(uint32_t *c, uint32_t flags, uint32_t lo, uint32_t hi)
{
    const uint32_t d[] = { GEN9_MI_FLUSH_DW | flags, lo, hi, 0xBAD };
    memcpy(c, d, sizeof d);
    return 4;
}

static unsigned emit_flush_ggtt(const struct priv_env *e, uint32_t *c)
{
    return emit_flush(c, GEN9_MI_FLUSH_DW_OP_STOREDW, priv_lo(e->victim) | GEN9_MI_FLUSH_DW_USE_GTT,
                      priv_hi(e->victim));
}

static unsigned emit_flush_ggtt_timestamp(const struct priv_env *e, uint32_t *c)
{
    return emit_flush(c, GEN9_MI_FLUSH_DW_OP_TIMESTAMP,
                      priv_lo(e->victim + 8) | GEN9_MI_FLUSH_DW_USE_GTT, priv_hi(e->victim));
}

static unsigned emit_flush_index(const struct priv_env *e, uint32_t *c)
{
    (void)e;
    return emit_flush(c, GEN9_MI_FLUSH_DW_OP_STOREDW | GEN9_MI_FLUSH_DW_STORE_INDEX,
                      PRIV_SCRATCH | GEN9_MI_FLUSH_DW_USE_GTT, 0);
}

/* A second-level start without bit 8: it runs through the PPGTT, non-privileged (the callee's
 * own GGTT store is dropped), and returns. */
static unsigned emit_bb_start_ggtt(const struct priv_env *e, uint32_t *c)
{
    const uint32_t d[] = { GEN9_MI_BATCH_BUFFER_START | GEN9_MI_BB_START_SECOND_LEVEL,
                           priv_lo(e->pp_callee), priv_hi(e->pp_callee) };
    memcpy(c, d, sizeof d);
    return 3;
}

/* The callee batch the harness puts at pp_callee. */
static inline unsigned priv_callee(const struct priv_env *e, uint32_t *c)
{
    const uint64_t pp = e->pp_data + PRIV_CALLEE_OFF, v = e->victim + 0x10;
    const uint32_t d[] = { GEN9_MI_STORE_DATA_IMM,
                           priv_lo(pp),
                           priv_hi(pp),
                           PRIV_CALLEE,
                           GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT,
                           priv_lo(v),
                           priv_hi(v),
                           0xBAD,
                           GEN9_MI_BATCH_BUFFER_END };
    memcpy(c, d, sizeof d);
    return 9;
}

/* The user batch: the case, the marker store, the end. */
static inline unsigned priv_batch(const struct priv_case *k, const struct priv_env *e, uint32_t *c)
{
    unsigned n = k->emit(e, c);
    const uint64_t pp = e->pp_data + PRIV_MARKER_OFF;
    const uint32_t d[] = { GEN9_MI_STORE_DATA_IMM, priv_lo(pp), priv_hi(pp), PRIV_MARKER,
                           GEN9_MI_BATCH_BUFFER_END };
    memcpy(c + n, d, sizeof d);
    return n + 5;
}

static const struct priv_case priv_cases[] = {
    { "MI_STORE_DATA_IMM dword to the GGTT", PRIV_ANY, emit_sdi_ggtt, 1, PRIV_GPR0, 0, 0 },
    { "MI_STORE_DATA_IMM qword to the GGTT", PRIV_ANY, emit_sdi_ggtt_qword, 1, PRIV_GPR0, 0, 0 },
    { "MI_STORE_REGISTER_MEM to the GGTT", PRIV_ANY, emit_srm_ggtt, 1, PRIV_GPR0, 0, 0 },
    { "MI_LOAD_REGISTER_MEM from the GGTT", PRIV_ANY, emit_lrm_ggtt, 1, PRIV_GPR0, 0, 0 },
    { "MI_LOAD_REGISTER_MEM to a privileged register", PRIV_ANY, emit_lrm_priv_reg, 1, PRIV_GPR0, 0,
      0 },
    { "MI_LOAD_REGISTER_IMM with a privileged register", PRIV_ANY, emit_lri_priv_reg, 1, PRIV_GPR0,
      0, 0 },
    { "MI_LOAD_REGISTER_IMM to GPR0 (user-mode)", PRIV_ANY, emit_lri_gpr, 0, 0x1234, 0, 0 },
    { "MI_LOAD_REGISTER_MEM to GPR0 from the PPGTT", PRIV_ANY, emit_lrm_gpr, 0, PRIV_PP_VALUE, 0,
      0 },
    { "MI_BATCH_BUFFER_START without bit 8", PRIV_ANY, emit_bb_start_ggtt, 1, PRIV_GPR0,
      PRIV_CALLEE_OFF, PRIV_CALLEE },
    { "PIPE_CONTROL post-sync to the GGTT", PRIV_RENDER, emit_pc_ggtt, 1, PRIV_GPR0, 0, 0 },
    { "PIPE_CONTROL timestamp to the GGTT", PRIV_RENDER, emit_pc_ggtt_timestamp, 1, PRIV_GPR0, 0,
      0 },
    { "PIPE_CONTROL store-data-index", PRIV_RENDER, emit_pc_index, 1, PRIV_GPR0, 0, 0 },
    { "PIPE_CONTROL post-sync to the PPGTT", PRIV_RENDER, emit_pc_ppgtt, 0, PRIV_GPR0, PRIV_PC_OFF,
      0x9C9C9C9Cu },
    { "MI_FLUSH_DW post-sync to the GGTT", PRIV_XCS, emit_flush_ggtt, 1, PRIV_GPR0, 0, 0 },
    { "MI_FLUSH_DW timestamp to the GGTT", PRIV_XCS, emit_flush_ggtt_timestamp, 1, PRIV_GPR0, 0,
      0 },
    { "MI_FLUSH_DW store-data-index", PRIV_XCS, emit_flush_index, 1, PRIV_GPR0, 0, 0 },
};
#define PRIV_N_CASES (sizeof priv_cases / sizeof priv_cases[0])

static inline bool priv_case_runs_on(const struct priv_case *k, bool render)
{
    return k->where == PRIV_ANY || (k->where == PRIV_RENDER) == render;
}

/* The checks every harness makes. */
static inline void priv_check(const struct priv_case *k, const struct priv_seen *s)
{
    if (s->faulted)
        print_error("%s: faulted: %s\n", k->name, s->why);
    assert_false(s->faulted);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(s->victim[i], (uint64_t)PRIV_SENTINEL << 32 | PRIV_SENTINEL);
    assert_int_equal(s->scratch, (uint64_t)PRIV_SENTINEL << 32 | PRIV_SENTINEL);
    assert_int_equal(s->marker, PRIV_MARKER);
    if (k->pp_off)
        assert_int_equal(s->pp_val, k->pp_val);
    assert_int_equal(s->gpr0, k->gpr0);
    assert_false(s->priv_reg_changed);
    if (s->dropped != k->dropped)
        print_error("%s: %u dropped, %u expected\n", k->name, (unsigned)s->dropped, k->dropped);
    assert_int_equal(s->dropped, k->dropped);
}

#endif /* TESSERA_TESTS_UNIT_IGPU_PRIVILEGE_CASES_H */
