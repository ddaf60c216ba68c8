/*
 * Internals of the software command streamer shared by its files: one step's context (the
 * engine, its callbacks, the result being filled) and the helpers every command uses (operand
 * fetch, memory access split at pages, address operands, registers, faults, privilege).
 */
#ifndef TESSERA_DRIVERS_IGPU_CS_CS_INTERNAL_H
#define TESSERA_DRIVERS_IGPU_CS_CS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/igpu/cs/cs.h"

struct cs_run {
    struct igpu_cs *cs;
    const struct igpu_cs_ops *ops;
    struct igpu_cs_result *res;
    bool paused; /* the current command stopped part way (cs_pause()) */
};

/* ---- cs_exec.c ---- */
/* Whether the caller's time is up (ops->out_of_time; never without one). */
bool cs_out_of_time(const struct cs_run *r);
/* Stop the current command after `units` of its units: the step ends, the engine stays at
 * this command, and the next step calls it again with cs->part.units == units. */
void cs_pause(struct cs_run *r, uint32_t units);
/* Stop the engine: the first fault sticks.  `what` is the reason after the command's name. */
bool cs_fault(struct cs_run *r, enum igpu_cs_fault f, uint64_t detail, const char *what);
/* Dwords [from, from + n) of the current command, fetched through the memory callback. */
bool cs_fetch(struct cs_run *r, uint32_t from, uint32_t n, uint32_t *out);
/* Read or write graphics memory, one callback per page; faults the engine on refusal. */
bool cs_mem(struct cs_run *r, enum igpu_cs_space space, uint64_t gaddr, void *buf, uint32_t len,
            enum igpu_cs_access how);
/* Write the low `bytes` bytes of v, little-endian, and count the write. */
bool cs_write(struct cs_run *r, enum igpu_cs_space space, uint64_t gaddr, uint64_t v,
              uint32_t bytes);
/* A 48-bit operand from dwords lo/hi with the low bits the hardware ignores (~lo_mask)
 * dropped; faults on reserved high bits. */
bool cs_addr(struct cs_run *r, uint32_t lo, uint32_t hi, uint32_t lo_mask, uint64_t *out);
/* Faults if `space` is PPGTT and the context has none. */
bool cs_space_ok(struct cs_run *r, enum igpu_cs_space space);
/* A register operand: faults on reserved offset bits (31:23). */
bool cs_reg_ok(struct cs_run *r, uint32_t reg);
/* Faults unless the allow-list (if the engine has one) lets commands access the register so
 * (IGPU_SCAN_REG_READ or _WRITE). */
bool cs_reg_allowed(struct cs_run *r, uint32_t reg, uint32_t access);
/* A post-sync address given as a byte offset into the running context's status page (the
 * "store data index" forms), qword aligned; faults beyond the page. */
bool cs_pphwsp_target(struct cs_run *r, uint32_t off, uint64_t *out);
uint64_t cs_now(const struct cs_run *r);
void cs_event(struct cs_run *r, uint32_t gt_bits);
void cs_tlb_invalidate(struct cs_run *r);
/* "not executed by the <engine>": a command the engine does not execute. */
bool cs_unsupported(struct cs_run *r, const char *what);
/* MI_BATCH_BUFFER_START / END: they move the engine. */
bool cs_bb_start(struct cs_run *r);
bool cs_bb_end(struct cs_run *r);

/* ---- cs_priv.c: the privilege rule of non-privileged batches ---- */
bool cs_privileged(const struct cs_run *r);
/* Whether a non-privileged batch may write the register (User Mode Non-Privileged). */
bool cs_nonpriv_reg(struct cs_run *r, uint32_t reg);
/* A memory operand (or post-sync target) the current batch may use: false for the GGTT
 * (`index`: the status-page index forms, always GGTT) from a non-privileged batch. */
bool cs_priv_mem_ok(const struct cs_run *r, enum igpu_cs_space space, bool index);
/* The start of a batch from the current one: a non-privileged batch's are non-privileged. */
enum igpu_cs_space cs_priv_batch_space(const struct cs_run *r, enum igpu_cs_space asked);
/* A command (or its post-sync) the current batch may not do is dropped: counted, not run. */
void cs_priv_drop(struct cs_run *r);

/* ---- cs_mi.c / cs_render.c: the commands, each executing cs->hdr with cs->dw filled ---- */
bool cs_exec_mi(struct cs_run *r);
bool cs_exec_render(struct cs_run *r); /* type-3 commands on the render engine */

#endif /* TESSERA_DRIVERS_IGPU_CS_CS_INTERNAL_H */
