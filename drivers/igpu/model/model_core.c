/*
 * Gen9 model: creation, the register file, interrupts and the backend operation table.
 *
 * Registers are decoded by offset in two switch statements (one for the engine-relative
 * window of RCS/BCS, one for global registers). A register not listed is refused with
 * IGPU_EUNSUPPORTED, so a driver never believes a write took effect when it did not.
 */
#include <stdlib.h>
#include <string.h>

#include "drivers/igpu/model/model_internal.h"
#include "arch/x86/pci_regs.h"

/* Size of the per-engine register window decoded relative to an engine base. */
#define ENGINE_WINDOW 0x800u
/* Skylake GT2 desktop (HD Graphics 530), the device the vGPU presents (vmm/vpci/vgpu_pci.h). */
#define MODEL_DEFAULT_DEVICE   0x1912u
#define MODEL_DEFAULT_APERTURE (256ull << 20)
/* A long blit's step: fine enough next to the 200 ms watchdog and a 6 ms scheduling slice. */
#define MODEL_DEFAULT_BLIT_STEP_NS 50000u

void igpu_model_cost_defaults(struct igpu_model_cost *c)
{
    /* Order-of-magnitude figures for a Skylake GT2 (not measured on hardware): a command
     * parse ~ tens of ns, a 32 bpp blit at a few GB/s, a context switch of a few us. */
    c->cmd_ns = 20;
    c->blit_ns = 200;
    c->pixel_ps = 250;
    c->write_ns = 30;
    c->batch_ns = 100;
    c->ctx_switch_ns = 2000;
}

void igpu_model_config_defaults(struct igpu_model_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->ggtt_entries = GEN9_GGTT_MAX_ENTRIES;
    cfg->aperture_size = MODEL_DEFAULT_APERTURE;
    cfg->device_id = MODEL_DEFAULT_DEVICE;
    cfg->timestamp_hz = IGPU_MODEL_TIMESTAMP_HZ;
    igpu_model_cost_defaults(&cfg->cost);
    cfg->blit_step_ns = MODEL_DEFAULT_BLIT_STEP_NS;
    cfg->preempt = IGPU_MODEL_PREEMPT_RING;
}

struct model_engine *model_engine(struct igpu_model *m, enum igpu_engine e)
{
    if ((unsigned)e >= IGPU_NUM_ENGINES)
        return NULL;
    return &m->eng[e];
}

uint64_t model_timestamp_ticks(const struct igpu_model *m, const struct model_engine *en)
{
    return igpu_ns_to_ticks(en->clock_ps / 1000u, m->cfg.timestamp_hz);
}

/* ---- interrupts ---------------------------------------------------------------------------
 * GT bank 0 carries both engines (RCS bits 15:0, BCS bits 31:16). An event sets its IIR bit
 * unless IMR masks it; the line is asserted while the master control bit is set and an IIR
 * bit is enabled in IER. IIR bits are cleared by writing 1 (i915 gen8_gt_irq_handler). */
static void update_irq_line(struct igpu_model *m)
{
    bool line = (m->master_irq & GEN9_MASTER_IRQ_CONTROL) && (m->gt_iir & m->gt_ier);
    bool rising = line && !m->irq_line;
    m->irq_line = line;
    if (rising && m->cfg.irq)
        m->cfg.irq(m->cfg.irq_ctx);
}

static uint32_t engine_irq_shift(const struct model_engine *en)
{
    return en->id == IGPU_RCS ? GEN9_GT_RCS_IRQ_SHIFT : GEN9_GT_BCS_IRQ_SHIFT;
}

void model_raise(struct igpu_model *m, struct model_engine *en, uint32_t events)
{
    uint32_t bits = (events & 0xFFFFu) << engine_irq_shift(en);
    m->gt_iir |= bits & ~m->gt_imr;
    update_irq_line(m);
}

bool igpu_model_irq_asserted(const struct igpu_model *m)
{
    return m->irq_line;
}

/* ---- register file ------------------------------------------------------------------------ */

static struct model_engine *engine_window(struct igpu_model *m, uint32_t reg, uint32_t *rel)
{
    for (unsigned i = 0; i < IGPU_NUM_ENGINES; i++) {
        uint32_t base = m->eng[i].base;
        if (reg >= base && reg < base + ENGINE_WINDOW) {
            *rel = reg - base;
            return &m->eng[i];
        }
    }
    return NULL;
}

/* Forcewake request register -> index in fw_req, or -1. */
static int fw_index(uint32_t reg, bool ack)
{
    static const uint32_t req[3] = { GEN9_FORCEWAKE_RENDER, GEN9_FORCEWAKE_GT,
                                     GEN9_FORCEWAKE_MEDIA };
    static const uint32_t acks[3] = { GEN9_FORCEWAKE_ACK_RENDER, GEN9_FORCEWAKE_ACK_GT,
                                      GEN9_FORCEWAKE_ACK_MEDIA };
    for (int i = 0; i < 3; i++)
        if ((ack ? acks[i] : req[i]) == reg)
            return i;
    return -1;
}

static int engine_reg_read(struct igpu_model *m, struct model_engine *en, uint32_t reg,
                           uint32_t *val)
{
    uint32_t b = en->base;

    if (reg >= GEN9_RING_CSB_LO(b, 0) && reg < GEN9_RING_CSB_LO(b, GEN9_CSB_ENTRIES)) {
        uint32_t i = (reg - GEN9_RING_CSB_LO(b, 0)) / 8u;
        *val = en->csb[i][(reg & 4u) ? 1 : 0];
        return IGPU_OK;
    }
    if (reg >= GEN9_RING_CS_GPR(b, 0) && reg < GEN9_RING_CS_GPR(b, GEN9_CS_GPR_COUNT)) {
        *val = en->gpr[(reg - GEN9_RING_CS_GPR(b, 0)) / 4u];
        return IGPU_OK;
    }
    if (reg == GEN9_RING_TAIL(b))
        *val = en->cs.ring.tail;
    else if (reg == GEN9_RING_HEAD(b))
        *val = en->cs.ring.head | (en->cs.ring_wraps << 21);
    else if (reg == GEN9_RING_START(b))
        *val = (uint32_t)en->cs.ring.start;
    else if (reg == GEN9_RING_CTL(b))
        *val = en->ring_ctl;
    else if (reg == GEN9_RING_ACTHD(b))
        *val = (uint32_t)en->cs.cmd_gaddr;
    else if (reg == GEN9_RING_ACTHD_UDW(b))
        *val = (uint32_t)(en->cs.cmd_gaddr >> 32);
    else if (reg == GEN9_RING_BBADDR(b))
        *val = (uint32_t)en->cs.bb[en->cs.level].pos;
    else if (reg == GEN9_RING_BBADDR_UDW(b))
        *val = (uint32_t)(en->cs.bb[en->cs.level].pos >> 32);
    else if (reg == GEN9_RING_HWS_PGA(b))
        *val = en->hws_pga;
    else if (reg == GEN9_RING_NOPID(b))
        *val = en->cs.nopid;
    else if (reg == GEN9_RING_HWSTAM(b))
        *val = en->hwstam;
    else if (reg == GEN9_RING_MI_MODE(b)) {
        bool idle = en->state != IGPU_MODEL_ACTIVE || (en->mi_mode & GEN9_MI_MODE_STOP_RING);
        *val = (en->mi_mode & ~GEN9_MI_MODE_IDLE) | (idle ? GEN9_MI_MODE_IDLE : 0);
    } else if (reg == GEN9_RING_IMR(b))
        *val = en->imr;
    else if (reg == GEN9_RING_RESET_CTL(b)) {
        /* The model can always be reset at once: ready follows the request. */
        uint32_t ready = (en->reset_ctl & GEN9_RESET_CTL_REQUEST_RESET)
                           ? GEN9_RESET_CTL_READY_TO_RESET
                           : 0;
        *val = en->reset_ctl | ready;
    } else if (reg == GEN9_RING_EXECLIST_STATUS_LO(b))
        *val = model_execlist_status_lo(en);
    else if (reg == GEN9_RING_EXECLIST_STATUS_HI(b)) {
        *val = en->state == IGPU_MODEL_ACTIVE ? en->ctx_id : 0;
    } else if (reg == GEN9_RING_MODE(b))
        *val = en->gfx_mode;
    else if (reg == GEN9_RING_TIMESTAMP(b))
        *val = (uint32_t)model_timestamp_ticks(m, en);
    else if (reg == GEN9_RING_TIMESTAMP_UDW(b))
        *val = (uint32_t)(model_timestamp_ticks(m, en) >> 32);
    else if (reg == GEN9_RING_CSB_PTR(b))
        *val = (en->csb_rp << GEN9_CSB_READ_PTR_SHIFT) | (en->csb_wp << GEN9_CSB_WRITE_PTR_SHIFT);
    else if (reg == GEN9_RING_CTX_TIMESTAMP(b)) {
        uint64_t t = en->ctx_ts_ticks;
        if (en->state == IGPU_MODEL_ACTIVE && !en->need_restore)
            t += model_timestamp_ticks(m, en) - en->ctx_start_ticks;
        *val = (uint32_t)t;
    } else if (en->id == IGPU_BCS && reg == GEN9_BCS_SWCTRL)
        *val = m->bcs_swctrl;
    else
        return IGPU_EUNSUPPORTED;
    return IGPU_OK;
}

static int engine_reg_write(struct igpu_model *m, struct model_engine *en, uint32_t reg,
                            uint32_t val)
{
    uint32_t b = en->base;

    if (reg >= GEN9_RING_CS_GPR(b, 0) && reg < GEN9_RING_CS_GPR(b, GEN9_CS_GPR_COUNT)) {
        en->gpr[(reg - GEN9_RING_CS_GPR(b, 0)) / 4u] = val;
        return IGPU_OK;
    }
    if (reg == GEN9_RING_ELSP(b))
        return model_elsp_write(m, en, val);
    if (reg == GEN9_RING_HWS_PGA(b)) {
        en->hws_pga = val & ~GEN9_GTT_PAGE_MASK;
        en->hws_valid = true;
    } else if (reg == GEN9_RING_HWSTAM(b))
        en->hwstam = val;
    else if (reg == GEN9_RING_MI_MODE(b))
        en->mi_mode = gen9_masked_apply(en->mi_mode, val);
    else if (reg == GEN9_RING_IMR(b))
        en->imr = val;
    else if (reg == GEN9_RING_RESET_CTL(b)) {
        en->reset_ctl = gen9_masked_apply(en->reset_ctl, val) & GEN9_RESET_CTL_REQUEST_RESET;
    } else if (reg == GEN9_RING_MODE(b))
        en->gfx_mode = gen9_masked_apply(en->gfx_mode, val);
    else if (reg == GEN9_RING_CSB_PTR(b)) {
        /* Both pointers take masked writes: i915 rewinds both after a reset ("Sometimes
         * [the engine] forgets to reset its pointers ... Bludgeon them", reset_csb_pointers). */
        uint32_t p = gen9_masked_apply(en->csb_rp << GEN9_CSB_READ_PTR_SHIFT |
                                           en->csb_wp << GEN9_CSB_WRITE_PTR_SHIFT,
                                       val);
        en->csb_rp = (p >> GEN9_CSB_READ_PTR_SHIFT) & GEN9_CSB_PTR_MASK;
        en->csb_wp = (p >> GEN9_CSB_WRITE_PTR_SHIFT) & GEN9_CSB_PTR_MASK;
    } else if (en->id == IGPU_BCS && reg == GEN9_BCS_SWCTRL)
        m->bcs_swctrl = gen9_masked_apply(m->bcs_swctrl, val) &
                        (GEN9_BCS_SWCTRL_SRC_Y | GEN9_BCS_SWCTRL_DST_Y);
    else
        return IGPU_EUNSUPPORTED; /* ring registers are context state in execlist mode */
    return IGPU_OK;
}

static uint32_t master_irq_value(const struct igpu_model *m)
{
    uint32_t v = m->master_irq & GEN9_MASTER_IRQ_CONTROL;
    if (m->gt_iir & (0xFFFFu << GEN9_GT_RCS_IRQ_SHIFT))
        v |= GEN9_MASTER_GT_RCS_IRQ;
    if (m->gt_iir & (0xFFFFu << GEN9_GT_BCS_IRQ_SHIFT))
        v |= GEN9_MASTER_GT_BCS_IRQ;
    return v;
}

int model_reg_read(struct igpu_model *m, uint32_t reg, uint32_t *val)
{
    struct model_engine *en;
    uint32_t rel;
    int fw;

    if (reg & 3u)
        return IGPU_EINVAL;
    if (reg >= GEN9_GGTT_BAR0_OFFSET && reg < GEN9_GTTMMADR_SIZE) {
        uint64_t pte;
        uint32_t idx = (reg - GEN9_GGTT_BAR0_OFFSET) / GEN9_GGTT_PTE_SIZE;
        int rc = model_ggtt_read_pte(m, idx, &pte);
        if (rc)
            return rc;
        *val = (reg & 4u) ? (uint32_t)(pte >> 32) : (uint32_t)pte;
        return IGPU_OK;
    }
    if (reg >= GEN9_GGTT_BAR0_OFFSET)
        return IGPU_ERANGE;
    en = engine_window(m, reg, &rel);
    if (en)
        return engine_reg_read(m, en, reg, val);
    if (reg >= GEN9_FENCE_REG_LO(0) && reg < GEN9_FENCE_REG_LO(GEN9_FENCE_COUNT)) {
        uint64_t f = m->fence[(reg - GEN9_FENCE_REG_LO(0)) / 8u];
        *val = (reg & 4u) ? (uint32_t)(f >> 32) : (uint32_t)f;
        return IGPU_OK;
    }
    if ((fw = fw_index(reg, false)) >= 0) {
        *val = m->fw_req[fw];
        return IGPU_OK;
    }
    if ((fw = fw_index(reg, true)) >= 0) {
        /* Domains wake instantly: the ack mirrors the request. */
        *val = m->fw_req[fw] & (GEN9_FORCEWAKE_KERNEL | GEN9_FORCEWAKE_KERNEL_FALLBACK);
        return IGPU_OK;
    }
    switch (reg) {
    case GEN9_GFX_FLSH_CNTL:
        *val = 0;
        return IGPU_OK; /* write-only trigger */
    case GEN9_GDRST:
        *val = 0;
        return IGPU_OK; /* resets complete at once */
    case GEN9_MASTER_IRQ:
        *val = master_irq_value(m);
        return IGPU_OK;
    case GEN9_GT_IMR(0):
        *val = m->gt_imr;
        return IGPU_OK;
    case GEN9_GT_IIR(0):
        *val = m->gt_iir;
        return IGPU_OK;
    case GEN9_GT_IER(0):
        *val = m->gt_ier;
        return IGPU_OK;
    default:
        return IGPU_EUNSUPPORTED;
    }
}

int model_reg_write(struct igpu_model *m, uint32_t reg, uint32_t val)
{
    struct model_engine *en;
    uint32_t rel;
    int fw;

    if (reg & 3u)
        return IGPU_EINVAL;
    if (reg >= GEN9_GGTT_BAR0_OFFSET && reg < GEN9_GTTMMADR_SIZE) {
        uint64_t pte;
        uint32_t idx = (reg - GEN9_GGTT_BAR0_OFFSET) / GEN9_GGTT_PTE_SIZE;
        int rc = model_ggtt_read_pte(m, idx, &pte);
        if (rc)
            return rc;
        if (reg & 4u)
            pte = (pte & 0xFFFFFFFFull) | ((uint64_t)val << 32);
        else
            pte = (pte & ~0xFFFFFFFFull) | val;
        return model_ggtt_write_pte(m, idx, pte);
    }
    if (reg >= GEN9_GGTT_BAR0_OFFSET)
        return IGPU_ERANGE;
    en = engine_window(m, reg, &rel);
    if (en)
        return engine_reg_write(m, en, reg, val);
    if (reg >= GEN9_FENCE_REG_LO(0) && reg < GEN9_FENCE_REG_LO(GEN9_FENCE_COUNT)) {
        uint64_t *f = &m->fence[(reg - GEN9_FENCE_REG_LO(0)) / 8u];
        if (reg & 4u)
            *f = (*f & 0xFFFFFFFFull) | ((uint64_t)val << 32);
        else
            *f = (*f & ~0xFFFFFFFFull) | val;
        return IGPU_OK;
    }
    if ((fw = fw_index(reg, false)) >= 0) {
        m->fw_req[fw] = gen9_masked_apply(m->fw_req[fw], val);
        return IGPU_OK;
    }
    switch (reg) {
    case GEN9_GFX_FLSH_CNTL:
        if (val & GEN9_GFX_FLSH_CNTL_EN)
            model_tlb_flush(m);
        return IGPU_OK;
    case GEN9_GDRST:
        if (val & (GEN9_GRDOM_FULL | GEN9_GRDOM_RENDER))
            model_engine_reset(m, &m->eng[IGPU_RCS]);
        if (val & (GEN9_GRDOM_FULL | GEN9_GRDOM_BLT))
            model_engine_reset(m, &m->eng[IGPU_BCS]);
        return IGPU_OK;
    case GEN9_MASTER_IRQ:
        m->master_irq = val & GEN9_MASTER_IRQ_CONTROL;
        update_irq_line(m);
        return IGPU_OK;
    case GEN9_GT_IMR(0):
        m->gt_imr = val;
        return IGPU_OK;
    case GEN9_GT_IIR(0):
        m->gt_iir &= ~val;
        update_irq_line(m);
        return IGPU_OK;
    case GEN9_GT_IER(0):
        m->gt_ier = val;
        update_irq_line(m);
        return IGPU_OK;
    default:
        return IGPU_EUNSUPPORTED;
    }
}

/* Registers a command may load (LRI, LRM): the engine's GPRs, and BCS_SWCTRL on the
 * blitter (it selects Y tiling for the blits that follow). */
int model_cmd_reg_write(struct igpu_model *m, struct model_engine *en, uint32_t reg, uint32_t val)
{
    uint32_t b = en->base;
    bool ok = (reg >= GEN9_RING_CS_GPR(b, 0) && reg < GEN9_RING_CS_GPR(b, GEN9_CS_GPR_COUNT)) ||
              (en->id == IGPU_BCS && reg == GEN9_BCS_SWCTRL);
    if (!ok)
        return IGPU_EUNSUPPORTED;
    return engine_reg_write(m, en, reg, val);
}

/* Registers a command may store (SRM): any register of its own engine the model reads. */
int model_cmd_reg_read(struct igpu_model *m, struct model_engine *en, uint32_t reg, uint32_t *val)
{
    uint32_t rel;
    if (engine_window(m, reg, &rel) != en)
        return IGPU_EUNSUPPORTED;
    return engine_reg_read(m, en, reg, val);
}

/* ---- backend operations ----------------------------------------------------------------- */

static int op_reg_read(void *be, uint32_t reg, uint32_t *val)
{
    return model_reg_read(be, reg, val);
}

static int op_reg_write(void *be, uint32_t reg, uint32_t val)
{
    return model_reg_write(be, reg, val);
}

static int op_ggtt_write(void *be, uint32_t index, uint64_t pte)
{
    return model_ggtt_write_pte(be, index, pte);
}

static int op_ggtt_write_run(void *be, uint32_t index, uint32_t n, const uint64_t *ptes)
{
    return model_ggtt_write_run(be, index, n, ptes);
}

static int op_ggtt_read(void *be, uint32_t index, uint64_t *pte)
{
    return model_ggtt_read_pte(be, index, pte);
}

static int op_ggtt_flush(void *be)
{
    return model_reg_write(be, GEN9_GFX_FLSH_CNTL, GEN9_GFX_FLSH_CNTL_EN);
}

static int op_fence_write(void *be, uint32_t index, uint64_t value)
{
    struct igpu_model *m = be;
    if (index >= GEN9_FENCE_COUNT)
        return IGPU_ERANGE;
    m->fence[index] = value;
    return IGPU_OK;
}

static int op_engine_init(void *be, enum igpu_engine e, uint32_t hws_gaddr)
{
    struct igpu_model *m = be;
    struct model_engine *en = model_engine(m, e);
    if (!en || (hws_gaddr & GEN9_GTT_PAGE_MASK))
        return IGPU_EINVAL;
    en->gfx_mode = gen9_masked_apply(en->gfx_mode,
                                     GEN9_MASKED_BIT_ENABLE(GEN9_GFX_RUN_LIST_ENABLE));
    en->mi_mode = gen9_masked_apply(en->mi_mode, GEN9_MASKED_BIT_DISABLE(GEN9_MI_MODE_STOP_RING));
    en->hws_pga = hws_gaddr;
    en->hws_valid = true;
    return IGPU_OK;
}

static int op_elsp_submit(void *be, enum igpu_engine e, uint64_t d0, uint64_t d1)
{
    struct igpu_model *m = be;
    struct model_engine *en = model_engine(m, e);
    if (!en)
        return IGPU_EINVAL;
    return model_elsp_submit(m, en, d0, d1);
}

static int op_csb_read(void *be, enum igpu_engine e, struct igpu_csb_event *ev, unsigned max)
{
    struct igpu_model *m = be;
    struct model_engine *en = model_engine(m, e);
    if (!en || (max && !ev))
        return IGPU_EINVAL;
    return model_csb_drain(m, en, ev, max);
}

static int op_irq_ack(void *be, struct igpu_irq_status *st)
{
    struct igpu_model *m = be;
    uint32_t iir = m->gt_iir;
    if (!st)
        return IGPU_EINVAL;
    st->engine[IGPU_RCS] = (iir >> GEN9_GT_RCS_IRQ_SHIFT) & 0xFFFFu;
    st->engine[IGPU_BCS] = (iir >> GEN9_GT_BCS_IRQ_SHIFT) & 0xFFFFu;
    return model_reg_write(m, GEN9_GT_IIR(0), iir);
}

static int op_engine_reset(void *be, enum igpu_engine e)
{
    struct igpu_model *m = be;
    struct model_engine *en = model_engine(m, e);
    if (!en)
        return IGPU_EINVAL;
    model_engine_reset(m, en);
    return IGPU_OK;
}

static int op_timestamp(void *be, enum igpu_engine e, uint64_t *ticks)
{
    struct igpu_model *m = be;
    struct model_engine *en = model_engine(m, e);
    if (!en || !ticks)
        return IGPU_EINVAL;
    *ticks = model_timestamp_ticks(m, en);
    return IGPU_OK;
}

static const struct igpu_ops model_ops = {
    .name = "model",
    .reg_read = op_reg_read,
    .reg_write = op_reg_write,
    .ggtt_write = op_ggtt_write,
    .ggtt_write_run = op_ggtt_write_run,
    .ggtt_read = op_ggtt_read,
    .ggtt_flush = op_ggtt_flush,
    .fence_write = op_fence_write,
    .engine_init = op_engine_init,
    .elsp_submit = op_elsp_submit,
    .csb_read = op_csb_read,
    .irq_ack = op_irq_ack,
    .engine_reset = op_engine_reset,
    .timestamp = op_timestamp,
};

/* ---- life cycle ----------------------------------------------------------------------- */

static void fill_info(struct igpu_model *m)
{
    struct igpu_info *in = &m->igpu.info;
    memset(in, 0, sizeof(*in));
    in->vendor = PCI_VENDOR_INTEL;
    in->device = m->cfg.device_id;
    in->bar0_size = GEN9_GTTMMADR_SIZE;
    in->bar2_size = m->cfg.aperture_size;
    in->ggtt_size = (uint64_t)m->cfg.ggtt_entries * GEN9_GGTT_PTE_SIZE;
    in->ggtt_entries = m->cfg.ggtt_entries;
    in->gm_size = (uint64_t)m->cfg.ggtt_entries << GEN9_GTT_PAGE_SHIFT;
    in->aperture_size = m->cfg.aperture_size;
    in->stolen_base = m->cfg.gsm_base;
    in->timestamp_hz = m->cfg.timestamp_hz;
}

int igpu_model_create(const struct igpu_model_config *cfg, struct igpu_model **out)
{
    struct igpu_model *m;

    if (!cfg || !out || !cfg->mem.read || !cfg->mem.write)
        return IGPU_EINVAL;
    *out = NULL;
    if (cfg->ggtt_entries == 0 || cfg->ggtt_entries > GEN9_GGTT_MAX_ENTRIES ||
        cfg->timestamp_hz == 0 || cfg->cost.cmd_ns == 0 ||
        (cfg->gsm_base & (GEN9_GGTT_PTE_SIZE - 1u)) ||
        cfg->aperture_size > ((uint64_t)cfg->ggtt_entries << GEN9_GTT_PAGE_SHIFT) ||
        (cfg->aperture_size & GEN9_GTT_PAGE_MASK) ||
        (unsigned)cfg->preempt > IGPU_MODEL_PREEMPT_STEP)
        return IGPU_EINVAL;
    m = calloc(1, sizeof(*m));
    if (!m)
        return IGPU_ENOMEM;
    m->cfg = *cfg;
    m->igpu.ops = &model_ops;
    m->igpu.be = m;
    fill_info(m);
    for (unsigned i = 0; i < IGPU_NUM_ENGINES; i++) {
        m->eng[i].id = (enum igpu_engine)i;
        m->eng[i].base = igpu_engine_base((enum igpu_engine)i);
        model_engine_reset(m, &m->eng[i]);
    }
    *out = m;
    return IGPU_OK;
}

void igpu_model_destroy(struct igpu_model *m)
{
    free(m);
}

struct igpu *igpu_model_igpu(struct igpu_model *m)
{
    return &m->igpu;
}

int igpu_model_set_cost(struct igpu_model *m, const struct igpu_model_cost *cost)
{
    if (!m || !cost || cost->cmd_ns == 0)
        return IGPU_EINVAL;
    m->cfg.cost = *cost;
    return IGPU_OK;
}

enum igpu_model_engine_state igpu_model_engine_state(const struct igpu_model *m, enum igpu_engine e)
{
    if ((unsigned)e >= IGPU_NUM_ENGINES)
        return IGPU_MODEL_IDLE;
    return m->eng[e].state;
}

int igpu_model_stats(const struct igpu_model *m, enum igpu_engine e, struct igpu_model_stats *out)
{
    if ((unsigned)e >= IGPU_NUM_ENGINES || !out)
        return IGPU_EINVAL;
    *out = m->eng[e].stats;
    out->state = m->eng[e].state;
    out->clock_ns = m->eng[e].clock_ps / 1000u;
    out->busy_ns = m->eng[e].busy_ps / 1000u;
    return IGPU_OK;
}

const struct igpu_model_fault *igpu_model_fault(const struct igpu_model *m, enum igpu_engine e)
{
    if ((unsigned)e >= IGPU_NUM_ENGINES || m->eng[e].state != IGPU_MODEL_FAULTED)
        return NULL;
    return &m->eng[e].fault;
}

void igpu_model_advance(struct igpu_model *m, uint64_t ns)
{
    for (unsigned i = 0; i < IGPU_NUM_ENGINES; i++)
        m->eng[i].clock_ps += ns * 1000u;
}

const char *igpu_fault_reason_name(enum igpu_fault_reason r)
{
    switch (r) {
    case IGPU_FAULT_NONE:
        return "none";
    case IGPU_FAULT_GGTT_NOT_PRESENT:
        return "GGTT entry not present";
    case IGPU_FAULT_GGTT_RANGE:
        return "address beyond the GGTT";
    case IGPU_FAULT_MEMORY:
        return "memory access refused";
    case IGPU_FAULT_ACCESS_DENIED:
        return "access denied by the checker";
    case IGPU_FAULT_UNSUPPORTED_CMD:
        return "command not implemented by the model";
    case IGPU_FAULT_UNSUPPORTED_FIELD:
        return "command option not implemented by the model";
    case IGPU_FAULT_INVALID_CMD:
        return "malformed command";
    case IGPU_FAULT_WRONG_ENGINE:
        return "command not executed by this engine";
    case IGPU_FAULT_REGISTER:
        return "register not accessible to commands";
    case IGPU_FAULT_BATCH_DEPTH:
        return "batch nesting too deep";
    case IGPU_FAULT_BAD_CONTEXT:
        return "context image unusable";
    case IGPU_FAULT_RING_OVERRUN:
        return "command runs past the ring tail";
    case IGPU_FAULT_BAD_SUBMISSION:
        return "invalid execlist submission";
    case IGPU_FAULT_PPGTT_NOT_PRESENT:
        return "PPGTT entry not present";
    case IGPU_FAULT_PPGTT_READ_ONLY:
        return "write through a read-only PPGTT entry";
    default:
        return "?";
    }
}
