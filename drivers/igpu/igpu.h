/*
 * The iGPU backend interface. Tessera talks to the Gen9 GPU only through `struct igpu`: the
 * `hw` backend (drivers/igpu/hw/, real BAR MMIO) and the `model` backend (drivers/igpu/model/,
 * a software Gen9) both fill in the same operation table, so the vGPU, the GTT manager and
 * the render scheduler never know which one they drive.
 *
 * Also here: discovery of the device from PCI configuration space (ids, BAR sizes, GGTT size
 * from GMCH control, aperture, stolen memory). It is pure: configuration space is reached
 * through a caller-supplied accessor.
 *
 * Error convention: functions return 0 (IGPU_OK) or a negative `enum igpu_err`.
 */
#ifndef TESSERA_DRIVERS_IGPU_IGPU_H
#define TESSERA_DRIVERS_IGPU_IGPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum igpu_err {
    IGPU_OK = 0,
    IGPU_EINVAL = -1,       /* bad argument (engine, index, alignment) */
    IGPU_ERANGE = -2,       /* offset or index outside the device's range */
    IGPU_EUNSUPPORTED = -3, /* the backend does not implement this register/feature */
    IGPU_ETIMEDOUT = -4,    /* the hardware did not acknowledge in time */
    IGPU_EBUSY = -5,        /* engine busy / execlist queue full */
    IGPU_ENODEV = -6,       /* not a supported Gen9 device */
    IGPU_ENOMEM = -7,
    IGPU_EFAULT = -8, /* memory accessor failed / engine is faulted */
};

const char *igpu_strerror(int err);

/* The GT engines of a Skylake GT2 (i915 skl_gt2_info: RCS0, BCS0, VCS0, VECS0).  The backends
 * (hw, model) drive the first IGPU_NUM_ENGINES of them; the video engines exist only as the
 * i915 guest's virtual engines (an MI-only software command streamer, drivers/igpu/cs/) and in
 * the scanner's tables, so they are numbered after the backends' engines. */
enum igpu_engine {
    IGPU_RCS = 0,  /* render command streamer */
    IGPU_BCS = 1,  /* blitter command streamer */
    IGPU_VCS = 2,  /* video decode (VCS0, "BSD") */
    IGPU_VECS = 3, /* video enhancement (VECS0, "VEBOX") */
};
#define IGPU_NUM_ENGINES    2u /* engines a backend drives: RCS and BCS */
#define IGPU_NUM_GT_ENGINES 4u /* every engine of a Skylake GT2 */

const char *igpu_engine_name(enum igpu_engine e);
/* MMIO base of an engine (GEN9_RCS_BASE, GEN9_BCS_BASE, GEN9_VCS_BASE, GEN9_VECS_BASE), 0 for
 * an invalid engine. */
uint32_t igpu_engine_base(enum igpu_engine e);
/* The engine whose registers start at MMIO base `base`; -1 if none. */
int igpu_engine_from_base(uint32_t base);
/* Where the engine's interrupt bits sit in the GT interrupt registers: bank (GEN9_GT_IIR(bank))
 * and shift (i915 gen8_gt_irq_handler(), logical_ring_default_irqs()); false if invalid. */
bool igpu_engine_irq(enum igpu_engine e, unsigned *bank, unsigned *shift);
/* The engine's GEN6_GDRST domain bit (i915 intel_engine_cs.c engine_reset_domains[]), 0 if
 * invalid. */
uint32_t igpu_engine_reset_domain(enum igpu_engine e);

/* One context status buffer event, as the engine wrote it. */
struct igpu_csb_event {
    uint32_t status; /* GEN9_CTX_STATUS_* bits */
    uint32_t ctx_id; /* upper dword: context id of the element concerned */
};

/* Facts about the device, from discovery (hw) or from the model's configuration. */
struct igpu_info {
    uint16_t vendor, device;
    uint8_t revision;
    uint64_t bar0_base, bar0_size; /* GTTMMADR: registers + GGTT */
    uint64_t bar2_base, bar2_size; /* GMADR: the CPU aperture */
    uint16_t gmch_ctl;             /* raw PCI 0x50 */
    uint32_t bdsm;                 /* raw PCI 0x5C */
    uint64_t ggtt_size;            /* bytes of GGTT entries (from GMCH GGMS) */
    uint32_t ggtt_entries;         /* ggtt_size / 8 */
    uint64_t gm_size;              /* graphics address space: entries * 4 KiB */
    uint64_t aperture_size;        /* = bar2_size */
    uint64_t stolen_base, stolen_size;
    uint32_t timestamp_hz; /* engine timestamp tick rate */
};

/* Event counts drained by irq_ack, per engine (GEN9_GT_* bits, unshifted). */
struct igpu_irq_status {
    uint32_t engine[IGPU_NUM_ENGINES];
};

/*
 * The operations every backend implements. `be` is the backend's own state.
 *  reg_read/reg_write  32-bit MMIO register access (offset into the register half of BAR0).
 *  ggtt_write/read     one 64-bit GGTT entry by index; ggtt_flush makes prior writes visible
 *                      to the GPU (GFX_FLSH_CNTL).
 *  ggtt_write_run      n consecutive entries from index (i915 gen8_ggtt_insert_entries()
 *                      writes them in one loop); may be NULL: igpu_ggtt_write_run() then
 *                      writes them one by one.
 *  fence_write         program fence i with a 64-bit Gen9 fence value (gen9_fence_encode()).
 *  engine_init         put an engine in execlist mode with its status page at hws_gaddr.
 *  elsp_submit         submit (desc0, desc1) to the engine's ELSP; desc1 may be 0 (invalid).
 *  csb_read            drain up to max new CSB events in order; returns how many (>= 0).
 *  irq_ack             read and clear pending GT interrupts for both engines.
 *  engine_reset        reset one engine (its execlist state and CSB pointers).
 *  timestamp           the engine's free-running timestamp in ticks of info.timestamp_hz.
 */
struct igpu_ops {
    const char *name;
    int (*reg_read)(void *be, uint32_t reg, uint32_t *val);
    int (*reg_write)(void *be, uint32_t reg, uint32_t val);
    int (*ggtt_write)(void *be, uint32_t index, uint64_t pte);
    int (*ggtt_write_run)(void *be, uint32_t index, uint32_t n, const uint64_t *ptes);
    int (*ggtt_read)(void *be, uint32_t index, uint64_t *pte);
    int (*ggtt_flush)(void *be);
    int (*fence_write)(void *be, uint32_t index, uint64_t value);
    int (*engine_init)(void *be, enum igpu_engine e, uint32_t hws_gaddr);
    int (*elsp_submit)(void *be, enum igpu_engine e, uint64_t desc0, uint64_t desc1);
    int (*csb_read)(void *be, enum igpu_engine e, struct igpu_csb_event *ev, unsigned max);
    int (*irq_ack)(void *be, struct igpu_irq_status *st);
    int (*engine_reset)(void *be, enum igpu_engine e);
    int (*timestamp)(void *be, enum igpu_engine e, uint64_t *ticks);
};

struct igpu {
    const struct igpu_ops *ops;
    void *be;
    struct igpu_info info;
};

static inline int igpu_reg_read(struct igpu *g, uint32_t reg, uint32_t *val)
{
    return g->ops->reg_read(g->be, reg, val);
}
static inline int igpu_reg_write(struct igpu *g, uint32_t reg, uint32_t val)
{
    return g->ops->reg_write(g->be, reg, val);
}
static inline int igpu_ggtt_write(struct igpu *g, uint32_t index, uint64_t pte)
{
    return g->ops->ggtt_write(g->be, index, pte);
}
static inline int igpu_ggtt_write_run(struct igpu *g, uint32_t index, uint32_t n,
                                      const uint64_t *ptes)
{
    if (g->ops->ggtt_write_run)
        return g->ops->ggtt_write_run(g->be, index, n, ptes);
    for (uint32_t k = 0; k < n; k++) {
        int rc = g->ops->ggtt_write(g->be, index + k, ptes[k]);
        if (rc)
            return rc;
    }
    return 0;
}
static inline int igpu_ggtt_read(struct igpu *g, uint32_t index, uint64_t *pte)
{
    return g->ops->ggtt_read(g->be, index, pte);
}
static inline int igpu_ggtt_flush(struct igpu *g)
{
    return g->ops->ggtt_flush(g->be);
}
static inline int igpu_fence_write(struct igpu *g, uint32_t index, uint64_t value)
{
    return g->ops->fence_write(g->be, index, value);
}
static inline int igpu_engine_init(struct igpu *g, enum igpu_engine e, uint32_t hws_gaddr)
{
    return g->ops->engine_init(g->be, e, hws_gaddr);
}
static inline int igpu_elsp_submit(struct igpu *g, enum igpu_engine e, uint64_t d0, uint64_t d1)
{
    return g->ops->elsp_submit(g->be, e, d0, d1);
}
static inline int igpu_csb_read(struct igpu *g, enum igpu_engine e, struct igpu_csb_event *ev,
                                unsigned max)
{
    return g->ops->csb_read(g->be, e, ev, max);
}
static inline int igpu_irq_ack(struct igpu *g, struct igpu_irq_status *st)
{
    return g->ops->irq_ack(g->be, st);
}
static inline int igpu_engine_reset(struct igpu *g, enum igpu_engine e)
{
    return g->ops->engine_reset(g->be, e);
}
static inline int igpu_timestamp(struct igpu *g, enum igpu_engine e, uint64_t *ticks)
{
    return g->ops->timestamp(g->be, e, ticks);
}

/* The complete register-state layout of engine e's logical ring context (gen9_context.h),
 * NULL for an invalid engine. */
struct gen9_lrc_layout;
const struct gen9_lrc_layout *igpu_lrc_layout(enum igpu_engine e);

/* Fill the register-state page of an execlist context image for engine e (the page at
 * GEN9_LRC_STATE_OFFSET from the LRCA; n_dw >= 1024) as i915's lrc_init_state() does: from
 * default_state (the engine's own recorded image, GEN9_LRC_STATE_DW or more dwords of its
 * register-state page; may equal s) with restore allowed, or, if default_state is NULL, from
 * zeros with context restore inhibited; then the full LRI layout, CONTEXT_CONTROL, STOP_RING
 * cleared, no PPGTT, and the ring registers (RING_HEAD/TAIL/START/CTL). ring_size is a
 * multiple of 4 KiB up to 2 MiB; head and tail are byte offsets into the ring. */
int igpu_lrc_init_state(uint32_t *state, size_t n_dw, enum igpu_engine e,
                        const uint32_t *default_state, uint32_t ring_gaddr, uint32_t ring_size,
                        uint32_t head, uint32_t tail);

/* Convert timestamp ticks to nanoseconds and back without overflowing for any 64-bit input
 * that fits the result. hz must be non-zero. */
uint64_t igpu_ticks_to_ns(uint64_t ticks, uint32_t hz);
uint64_t igpu_ns_to_ticks(uint64_t ns, uint32_t hz);

/* ---- Discovery --------------------------------------------------------------------------- */

/* PCI configuration space of the iGPU function, reached by the caller (arch/x86 PCI code). */
struct igpu_pci_cfg {
    uint32_t (*read32)(void *ctx, uint16_t off);
    void (*write32)(void *ctx, uint16_t off, uint32_t val);
    void *ctx;
};

/* True for the Gen9 (Skylake) device ids Tessera supports (i915 i915_pciids.h INTEL_SKL_*). */
bool igpu_pci_id_supported(uint16_t vendor, uint16_t device);

/* GGTT size in bytes from GMCH control (Gen8+ encoding: 1 << GGMS MiB, 0 = none). */
uint64_t igpu_gmch_ggtt_size(uint16_t gmch_ctl);
/* Stolen (data) memory size from GMCH control, Gen9 encoding: codes below 0xF0 count 32 MiB
 * units, codes 0xF0.. count 4 MiB units starting at 4 MiB (Linux arch/x86/kernel/early-quirks.c
 * gen9_stolen_size(); older i915 had it as gen9_get_stolen_size()). */
uint64_t igpu_gmch_stolen_size(uint16_t gmch_ctl);
/* Stolen memory base from BDSM. */
uint64_t igpu_bdsm_base(uint32_t bdsm);

/* Size of a memory BAR from the values read back after writing all ones to it (and to the
 * upper half for a 64-bit BAR; pass 0xFFFFFFFF for hi_readback of a 32-bit BAR). */
uint64_t igpu_bar_size_from_probe(uint32_t lo_readback, uint32_t hi_readback);

/*
 * Read ids, size BAR0 and BAR2 (memory decoding is switched off while sizing and the original
 * BAR values and command register are restored), decode GMCH control and BDSM. Returns
 * IGPU_ENODEV if the function is not a supported Gen9 device, IGPU_EINVAL on malformed BARs.
 */
int igpu_discover(const struct igpu_pci_cfg *cfg, struct igpu_info *out);

#endif /* TESSERA_DRIVERS_IGPU_IGPU_H */
