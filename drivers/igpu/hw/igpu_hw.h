/*
 * The hardware backend: drives a real Gen9 iGPU through its BAR0 MMIO window and implements
 * the interface of drivers/igpu/igpu.h. It is written against a tiny MMIO accessor so its
 * exact register sequences can be tested against a recording fake; the hypervisor passes
 * accessors that do volatile loads/stores on the mapped BAR0 (arch/x86 maps it uncached).
 *
 * Sequences follow i915:
 *  - forcewake (intel_uncore.c): per domain, wait for the ack to clear, masked-set
 *    FORCEWAKE_KERNEL in the request register, then wait for the ack to be set; release with
 *    the masked clear. Registers below 0x40000 are looked up in the Gen9 forcewake range table
 *    (__gen9_fw_ranges) and the domains they need are held around the access; nested holds
 *    are counted, so only the outermost get/put touches the hardware.
 *  - GGTT (gt/intel_ggtt.c): entries are 64-bit writes at BAR0 + 8 MiB + 8 * index; a flush
 *    is one write of GFX_FLSH_CNTL_EN to GFX_FLSH_CNTL (gen8_ggtt_invalidate).
 *  - fences (gt/intel_ggtt_fencing.c i965_write_fence_reg): low = 0, posting read, high, low,
 *    posting read, so the fence is never valid with a half-written value.
 *  - execlists (gt/intel_execlists_submission.c): enable_execlists() writes HWSTAM, the
 *    masked RUN_LIST_ENABLE in RING_MODE, clears STOP_RING, sets HWS_PGA; submission writes
 *    ELSP element 1 upper, lower, element 0 upper, lower; CSB entries are read between the
 *    software read pointer and the hardware write pointer, and the read pointer is written
 *    back (masked).
 *  - reset (gt/intel_reset.c gen8_reset_engines): request reset in RING_RESET_CTL, wait for
 *    READY_TO_RESET, write the engine's GDRST bit, wait for it to clear, cancel the request.
 *  - interrupts (i915_irq.c gen8_irq_handler): master off, read and clear GT IIR, master on.
 */
#ifndef TESSERA_DRIVERS_IGPU_HW_IGPU_HW_H
#define TESSERA_DRIVERS_IGPU_HW_IGPU_HW_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/igpu/igpu.h"

/* BAR0 access. Offsets are bytes from the start of BAR0. write64 may be NULL: the entry is
 * then written as two 32-bit writes, low dword first (as writeq is split on 32-bit kernels).
 * delay_us may be NULL; it is called between polls of an acknowledge bit. */
struct igpu_mmio {
    uint32_t (*read32)(void *ctx, uint32_t off);
    void (*write32)(void *ctx, uint32_t off, uint32_t val);
    uint64_t (*read64)(void *ctx, uint32_t off);
    void (*write64)(void *ctx, uint32_t off, uint64_t val);
    void (*delay_us)(void *ctx, unsigned us);
    void *ctx;
};

/* Forcewake domains (bit per domain, in i915's FW_DOMAIN_ID order). */
#define IGPU_FW_RENDER  (1u << 0)
#define IGPU_FW_GT      (1u << 1)
#define IGPU_FW_MEDIA   (1u << 2)
#define IGPU_FW_ALL     (IGPU_FW_RENDER | IGPU_FW_GT | IGPU_FW_MEDIA)
#define IGPU_FW_NUM     3u

/* Default number of polls (each after a 1 us delay) before an acknowledge times out:
 * 50 ms, i915's FORCEWAKE_ACK_TIMEOUT_MS. */
#define IGPU_HW_POLL_DEFAULT 50000u

struct igpu_hw {
    struct igpu_mmio mmio;
    struct igpu igpu;
    unsigned fw_count[IGPU_FW_NUM];
    uint32_t csb_head[IGPU_NUM_ENGINES];
    unsigned poll_limit;
};

/* Set up the backend for the device described by info (from igpu_discover()); resets every
 * forcewake request register. Returns IGPU_EINVAL for a BAR0 smaller than 16 MiB or a GGTT
 * that does not fit in it. */
int igpu_hw_init(struct igpu_hw *hw, const struct igpu_mmio *mmio, const struct igpu_info *info);
static inline struct igpu *igpu_hw_igpu(struct igpu_hw *hw) { return &hw->igpu; }

/* Hold / release forcewake domains (IGPU_FW_* mask); nested holds are counted. */
int igpu_hw_forcewake_get(struct igpu_hw *hw, unsigned domains);
void igpu_hw_forcewake_put(struct igpu_hw *hw, unsigned domains);
/* The forcewake domains a register needs on Gen9 (0 for none). */
unsigned igpu_hw_fw_domains(uint32_t reg);

#endif /* TESSERA_DRIVERS_IGPU_HW_IGPU_HW_H */
