/*
 * The hardware backend: drives a real Gen9 iGPU through its BAR0 MMIO window and implements
 * the interface of drivers/igpu/igpu.h. It is written against a tiny MMIO accessor so its
 * exact register sequences can be tested against a recording fake (tests/unit/test_igpu_hw*.c);
 * the hypervisor passes accessors that do volatile loads/stores on the mapped BAR0 (arch/x86
 * maps it uncached).
 *
 * Every sequence follows i915 (the comment at each names the function):
 *  - forcewake (intel_uncore.c fw_domains_get_with_fallback, igpu_hw_fw.c): per domain wait
 *    for the ack to clear, masked-set FORCEWAKE_KERNEL, then wait for the acks; a missing ack
 *    gets the FORCEWAKE_KERNEL_FALLBACK toggle (WaRsForcewakeAddDelayForAck) and, failing
 *    that, a log line, and the access goes ahead as in i915.  Registers below 0x40000 are
 *    looked up in the Gen9 forcewake range table (__gen9_fw_ranges); nested holds are counted.
 *  - GGTT (gt/intel_ggtt.c): entries are 64-bit writes at BAR0 + 8 MiB + 8 * index; the
 *    invalidate is one write of GFX_FLSH_CNTL_EN to GFX_FLSH_CNTL (gen8_ggtt_invalidate), which
 *    callers issue after every update that the GPU may use (gen8_ggtt_insert_page/_entries).
 *  - fences (gt/intel_ggtt_fencing.c i965_write_fence_reg): low = 0, posting read, high, low,
 *    posting read, so the fence is never valid with a half-written value.
 *  - execlists (gt/intel_execlists_submission.c): reset_csb_pointers() writes both CSB
 *    pointers, twice; enable_execlists() writes HWSTAM, the masked RUN_LIST_ENABLE, clears
 *    STOP_RING, sets HWS_PGA and enables the error interrupt; submission writes ELSP element 1
 *    upper, lower, element 0 upper, lower; CSB entries are read between the software read
 *    pointer and the hardware write pointer.
 *  - reset (gt/intel_reset.c, intel_engine_cs.c): stop the command streamer and wait for idle
 *    (intel_engine_stop_cs), then per attempt gen8_engine_reset_prepare() (bypassing the
 *    handshake on a catastrophic error), the GDRST domain reset written twice
 *    (gen6_hw_domain_reset), cancel the request; retried as __intel_gt_reset does.
 *  - the timestamp rate comes from CTC_MODE (gt/intel_gt_clock_utils.c
 *    gen9_read_clock_frequency).
 *  - interrupts (i915_irq.c gen8_irq_handler): master off, read and clear GT IIR, master on.
 */
#ifndef TESSERA_DRIVERS_IGPU_HW_IGPU_HW_H
#define TESSERA_DRIVERS_IGPU_HW_IGPU_HW_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/igpu/igpu.h"

/* BAR0 access. Offsets are bytes from the start of BAR0. write64 may be NULL: the entry is
 * then written as two 32-bit writes, low dword first (as writeq is split on 32-bit kernels).
 * delay_us may be NULL; it is called between polls of an acknowledge bit. log may be NULL; it
 * gets one line for each hardware misbehaviour the backend works around (a forcewake ack that
 * never came, a reset request that was not acknowledged). */
struct igpu_mmio {
    uint32_t (*read32)(void *ctx, uint32_t off);
    void (*write32)(void *ctx, uint32_t off, uint32_t val);
    uint64_t (*read64)(void *ctx, uint32_t off);
    void (*write64)(void *ctx, uint32_t off, uint64_t val);
    void (*delay_us)(void *ctx, unsigned us);
    void *ctx;
    void (*log)(void *ctx, const char *msg);
};

/* Forcewake domains (bit per domain, in i915's FW_DOMAIN_ID order). */
#define IGPU_FW_RENDER (1u << 0)
#define IGPU_FW_GT     (1u << 1)
#define IGPU_FW_MEDIA  (1u << 2)
#define IGPU_FW_ALL    (IGPU_FW_RENDER | IGPU_FW_GT | IGPU_FW_MEDIA)
#define IGPU_FW_NUM    3u

/* Waits, in microseconds (polls 1 us apart), as i915 times them:
 *   forcewake ack     50 ms  FORCEWAKE_ACK_TIMEOUT_MS (intel_uncore.c)
 *   fallback passes   10     fw_domain_wait_ack_with_fallback()
 *   stop CS -> idle   100 ms intel_engine_stop_cs(): 1 ms fast + props.stop_timeout_ms (100)
 *   reset handshake   700 us gen8_engine_reset_prepare()
 *   GDRST ack         2 ms   gen6_hw_domain_reset(), written twice, then 50 us to settle
 *   reset attempts    3      RESET_MAX_RETRIES (intel_reset.c) */
#define IGPU_HW_FW_ACK_US          50000u
#define IGPU_HW_FW_FALLBACK_PASSES 10u
#define IGPU_HW_STOP_CS_US         100000u
#define IGPU_HW_RESET_CTL_US       700u
#define IGPU_HW_GDRST_US           2000u
#define IGPU_HW_GDRST_WRITES       2u
#define IGPU_HW_GDRST_SETTLE_US    50u
#define IGPU_HW_RESET_ATTEMPTS     3u
/* Default cap on the polls of any wait (tests lower it to keep timeouts short). */
#define IGPU_HW_POLL_DEFAULT IGPU_HW_STOP_CS_US

struct igpu_hw {
    struct igpu_mmio mmio;
    struct igpu igpu;
    unsigned fw_count[IGPU_FW_NUM];
    uint32_t csb_head[IGPU_NUM_ENGINES];
    unsigned poll_limit; /* at most this many polls per wait */
    /* What the hardware made the backend work around (also logged through mmio.log). */
    unsigned fw_fallbacks;     /* acks that needed the FORCEWAKE_KERNEL_FALLBACK toggle */
    unsigned fw_ack_timeouts;  /* acks that never came (the access went ahead) */
    unsigned stop_cs_timeouts; /* engines that did not go idle before their reset */
    unsigned reset_retries;    /* reset attempts after the first */
};

/* Set up the backend for the device described by info (from igpu_discover()): resets every
 * forcewake request register and reads the timestamp rate from CTC_MODE into
 * info.timestamp_hz. Returns IGPU_EINVAL for a BAR0 smaller than 16 MiB or a GGTT that does
 * not fit in it. */
int igpu_hw_init(struct igpu_hw *hw, const struct igpu_mmio *mmio, const struct igpu_info *info);
static inline struct igpu *igpu_hw_igpu(struct igpu_hw *hw)
{
    return &hw->igpu;
}

/* Hold / release forcewake domains (IGPU_FW_* mask); nested holds are counted. A get always
 * succeeds, as in i915: an ack that does not come is worked around, logged and counted. */
int igpu_hw_forcewake_get(struct igpu_hw *hw, unsigned domains);
void igpu_hw_forcewake_put(struct igpu_hw *hw, unsigned domains);
/* The forcewake domains a register needs on Gen9 (0 for none). */
unsigned igpu_hw_fw_domains(uint32_t reg);

#endif /* TESSERA_DRIVERS_IGPU_HW_IGPU_HW_H */
