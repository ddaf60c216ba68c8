/* The i915 guest's vGPU: its state, BAR0 routing to the vgt blocks, the PV info page's PPGTT
 * notifications, interrupts as MSI, engine faults and the PPGTT shadow's EPT protection
 * (vgpu_i915.h says what and why). */
#include "vmm/vgpu/i915/vgpu_i915.h"

#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct vgpu_env *env(const struct vgpu *v)
{
    return &v->dev->cfg.env;
}

/* ---- the PPGTT shadow's callbacks ---------------------------------------------------------- */

static int pp_gpa_to_hpa(void *ctx, uint64_t gpa, uint64_t *hpa)
{
    struct vgpu *v = ctx;
    return env(v)->guest_phys(env(v)->ctx, v->id, gpa, hpa);
}

static int pp_read(void *ctx, uint64_t gpa, void *buf, size_t len)
{
    struct vgpu *v = ctx;
    void *p = env(v)->guest_ram(env(v)->ctx, v->id, gpa, len);
    if (!p)
        return -1;
    memcpy(buf, p, len);
    return 0;
}

static int pp_page_alloc(void *ctx, uint64_t *hpa, uint64_t **va)
{
    struct vgpu *v = ctx;
    void *p;
    if (env(v)->page_alloc(env(v)->ctx, hpa, &p) != 0)
        return -1;
    *va = p;
    return 0;
}

/* A shadow table the GPU may still be walking (blitter work of this vGPU in flight, or left
 * preempted in its shadow ring) is freed only once that work is off the engine: a page given
 * back to the hypervisor could hold anything next, and the GPU would follow it. */
static bool gpu_may_walk(const struct vgpu *v)
{
    return v->dev->running == v->id || v->preempted;
}

void vgpu_i915_release_deferred(struct vgpu *v)
{
    struct vgpu_i915 *g = i915_of(v);
    if (gpu_may_walk(v))
        return;
    for (unsigned i = 0; i < g->n_deferred; i++)
        env(v)->page_free(env(v)->ctx, g->deferred[i].hpa, g->deferred[i].va);
    g->n_deferred = 0;
}

static void pp_page_free(void *ctx, uint64_t hpa, uint64_t *va)
{
    struct vgpu *v = ctx;
    struct vgpu_i915 *g = i915_of(v);
    if (g && gpu_may_walk(v) && g->n_deferred == VGPU_I915_DEFERRED_MAX) {
        /* A guest that frees tables faster than its work leaves the engine: its work goes
         * (an engine reset), and with it every walk of the old tables. */
        vgpu_reset(v->dev, v->id, "too many page tables freed under its running blitter work");
        vgpu_i915_release_deferred(v);
    }
    if (!g || !gpu_may_walk(v)) {
        env(v)->page_free(env(v)->ctx, hpa, va);
        return;
    }
    g->deferred[g->n_deferred].hpa = hpa;
    g->deferred[g->n_deferred].va = va;
    g->n_deferred++;
    g->st.deferred_frees++;
}

static void pp_protect(void *ctx, uint64_t gpa, bool on)
{
    struct vgpu *v = ctx;
    env(v)->protect(env(v)->ctx, v->id, gpa, on);
}

/* Every refusal is logged with what was refused (the log limits each guest's lines,
 * vmm/log_limit.h): an operator sees which guest table and entry, not just a count. */
static void pp_refused(void *ctx, const struct vgt_ppgtt_refusal_info *r)
{
    struct vgpu *v = ctx;
    if (r->table_gpa == VGT_PPGTT_NO_TABLE)
        vgpu_logf(v->dev, VGPU_LOG_WARN, "vgpu %u: PPGTT %#llx refused: %s", v->id,
                  (unsigned long long)r->entry, vgt_ppgtt_refusal_name(r->why));
    else
        vgpu_logf(v->dev, VGPU_LOG_WARN,
                  "vgpu %u: PPGTT entry refused: %s (level %u table "
                  "%#llx [%u] = %#llx)",
                  v->id, vgt_ppgtt_refusal_name(r->why), r->level, (unsigned long long)r->table_gpa,
                  r->index, (unsigned long long)r->entry);
}

/* ---- the execlist sequencers' callbacks ---------------------------------------------------- */

static void el_hwsp_write(void *ctx, enum igpu_engine e, uint32_t index, uint32_t value)
{
    struct vgpu *v = ctx;
    uint32_t hws = i915_of(v)->hws_pga[e];
    uint8_t *p = hws ? vgpu_i915_ggtt_ptr(v, (uint64_t)hws + 4u * index, 4, true) : NULL;
    if (p)
        wr32le(p, value);
}

static void el_interrupt(void *ctx, enum igpu_engine e, uint32_t bits)
{
    vgpu_i915_event(ctx, e, bits);
}

/* ---- creation and reset -------------------------------------------------------------------- */

static int make_ppgtt(struct vgpu *v)
{
    struct vgt_ppgtt_config c = {
        .ops = { v, pp_gpa_to_hpa, pp_read, pp_page_alloc, pp_page_free, pp_protect, pp_refused },
        .scratch_hpa = i915_of(v)->scratch_hpa,
    };
    return vgt_ppgtt_create(&c, &i915_of(v)->pp) == VGT_PPGTT_OK ? 0 : -1;
}

static void reset_engines_and_irq(struct vgpu_i915 *g)
{
    vgt_irq_reset(&g->irq);
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++) {
        vgt_el_reset(&g->el[e]);
        vgt_regs_set_busy(&g->regs, (enum igpu_engine)e, false);
        g->hung[e] = false;
        g->mi[e].loaded = false; /* the core dropped what was queued (vgpu_guest_reset) */
        g->mi[e].n_sub = 0;
    }
    memset(g->hws_pga, 0, sizeof g->hws_pga);
}

int vgpu_i915_init(struct vgpu *v)
{
    const struct vgpu_env *en = env(v);
    struct vgpu_i915 *g;
    if (!en->page_alloc || !en->page_free || !en->protect || !en->msi || !en->guest_phys ||
        !en->phys_ptr) {
        vgpu_logf(v->dev, VGPU_LOG_ERROR,
                  "vgpu %u: the hypervisor gives no host pages, EPT "
                  "protection or MSI: no i915 vGPU",
                  v->id);
        return -1;
    }
    if (!(g = calloc(1, sizeof *g)))
        return -1;
    v->pers = g;
    if (!vgt_regs_init(&g->regs, v->dev->cfg.igpu->info.timestamp_hz))
        vgpu_logf(v->dev, VGPU_LOG_WARN,
                  "vgpu %u: the timestamp rate %u Hz cannot be said in "
                  "CTC_MODE: i915 will time its requests wrongly",
                  v->id, v->dev->cfg.igpu->info.timestamp_hz);
    vgt_irq_init(&g->irq);
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++)
        vgt_el_init(&g->el[e], (enum igpu_engine)e);
    g->el_ops = (struct vgt_el_ops){ v, el_hwsp_write, el_interrupt };
    if (en->page_alloc(en->ctx, &g->scratch_hpa, &g->scratch_va) != 0 || make_ppgtt(v) != 0) {
        vgpu_logf(v->dev, VGPU_LOG_ERROR, "vgpu %u: no host pages for its PPGTT shadow", v->id);
        vgpu_i915_free(v);
        return -1;
    }
    vgpu_logf(v->dev, VGPU_LOG_INFO,
              "vgpu %u: the vGPU i915 needs: full PPGTT, HWSP emulation, "
              "four engines (%s), MSI",
              v->id, IGPU_CS_LABEL);
    return 0;
}

void vgpu_i915_free(struct vgpu *v)
{
    struct vgpu_i915 *g = i915_of(v);
    if (!g)
        return;
    if (g->pp)
        vgt_ppgtt_destroy(g->pp);
    for (unsigned i = 0; i < g->n_deferred; i++) /* the device is gone: nothing runs */
        env(v)->page_free(env(v)->ctx, g->deferred[i].hpa, g->deferred[i].va);
    if (g->scratch_va)
        env(v)->page_free(env(v)->ctx, g->scratch_hpa, g->scratch_va);
    vgpu_i915_display_free(g);
    free(g);
    v->pers = NULL;
}

void vgpu_i915_reset_state(struct vgpu *v)
{
    struct vgpu_i915 *g = i915_of(v);
    vgt_regs_init(&g->regs, v->dev->cfg.igpu->info.timestamp_hz);
    reset_engines_and_irq(g);
    vgpu_i915_display_reset(v); /* all off, the configured monitor, SKL_DFSM */
    /* Every PPGTT goes (its pages unprotected); the guest announces its new ones. */
    vgt_ppgtt_destroy(g->pp);
    g->pp = NULL;
    g->n_oos = 0;
    if (make_ppgtt(v) != 0)
        vgpu_logf(v->dev, VGPU_LOG_ERROR,
                  "vgpu %u: no host pages for its PPGTT shadow: its "
                  "PPGTT contexts will be refused",
                  v->id);
    g->last_fault[0] = 0;
}

bool vgpu_is_i915(const struct vgpu *v)
{
    return v && v->ops == &vgpu_i915;
}

bool vgpu_i915_get_info(const struct vgpu *v, struct vgpu_i915_info *out)
{
    memset(out, 0, sizeof *out);
    if (!vgpu_is_i915(v))
        return false;
    const struct vgpu_i915 *g = i915_of(v);
    out->st = g->st;
    if (g->pp)
        out->ppgtt = *vgt_ppgtt_stats(g->pp);
    memcpy(out->fault, g->last_fault, sizeof out->fault);
    return true;
}

/* ---- interrupts and faults ----------------------------------------------------------------- */

void vgpu_i915_send_msi(struct vgpu *v)
{
    if (env(v)->msi(env(v)->ctx, v->id))
        i915_of(v)->st.msi_sent++;
    else
        i915_of(v)->st.msi_undelivered++;
}

void vgpu_i915_event(struct vgpu *v, enum igpu_engine e, uint32_t gt_bits)
{
    if (vgt_irq_event(&i915_of(v)->irq, e, gt_bits))
        vgpu_i915_send_msi(v);
}

void vgpu_i915_fault(struct vgpu *v, enum igpu_engine e, const char *why)
{
    struct vgpu_i915 *g = i915_of(v);
    if (g->hung[e])
        return; /* one fault per hang: the guest resets the engine */
    g->hung[e] = true;
    g->st.faults[e]++;
    if (e == IGPU_BCS)
        v->rest.bytes = 0; /* nothing more of its element is queued */
    snprintf(g->last_fault, sizeof g->last_fault, "%s: %s", igpu_engine_name(e), why);
    vgpu_note_reject(v, TESSERA_REJECT_GPU_FAULT, "engine fault, request failed: %s",
                     g->last_fault);
    /* i915 execlists_irq_handler(): CS_MASTER_ERROR, then RING_EIR says what. */
    vgt_regs_engine_error(&g->regs, e, GEN9_ERROR_INSTRUCTION);
    vgpu_i915_event(v, e, GEN9_GT_CS_MASTER_ERROR);
}

/* ---- PPGTT table pages: EPT protection, out-of-sync pages ---------------------------------- */

void vgpu_i915_sync_oos(struct vgpu *v)
{
    struct vgpu_i915 *g = i915_of(v);
    if (!g->n_oos)
        return;
    /* Protected again before they are read, so no write slips between the two; a page freed
     * meanwhile stays given back. */
    for (unsigned i = 0; i < g->n_oos; i++) {
        if (!vgt_ppgtt_is_table(g->pp, g->oos[i]))
            continue;
        g->st.oos_syncs++;
        env(v)->protect(env(v)->ctx, v->id, g->oos[i], true);
    }
    vgt_ppgtt_resync(g->pp, g->oos, g->n_oos);
    g->n_oos = 0;
}

bool vgpu_i915_table_write(struct vgpu *v, uint64_t gpa)
{
    struct vgpu_i915 *g = i915_of(v);
    if (!g->pp)
        return false;
    uint64_t page = gpa & ~(uint64_t)GEN9_GTT_PAGE_MASK;
    if (!vgt_ppgtt_is_table(g->pp, page))
        return false;
    g->st.table_writes++;
    for (unsigned i = 0; i < g->n_oos; i++)
        if (g->oos[i] == page)
            return true; /* already given back (a stale TLB entry) */
    if (g->n_oos == VGPU_I915_OOS_MAX)
        vgpu_i915_sync_oos(v);
    g->oos[g->n_oos++] = page;
    env(v)->protect(env(v)->ctx, v->id, page, false);
    return true;
}

/* ---- memory the engines reach through the GGTT --------------------------------------------- */

uint8_t *vgpu_i915_ggtt_ptr(struct vgpu *v, uint64_t gm, uint32_t len, bool write)
{
    uint64_t pte;
    uint8_t *p = NULL;
    if (igpu_scan_ranges_contain(v->ranges, v->n_ranges, gm, len) &&
        (gm >> GEN9_GTT_PAGE_SHIFT) <= UINT32_MAX &&
        gtt_guest_read(v->dev->cfg.gtt, v->id, (uint32_t)(gm >> GEN9_GTT_PAGE_SHIFT), &pte) == 0 &&
        (pte & GEN9_GGTT_PTE_PRESENT)) {
        uint64_t gpa = (pte & GEN9_GGTT_PTE_ADDR_MASK) + (gm & GEN9_GTT_PAGE_MASK);
        /* The GPU writing a page-table page would change the PPGTT behind its shadow. */
        if (!write || !vgt_ppgtt_is_table(i915_of(v)->pp, gpa & ~(uint64_t)GEN9_GTT_PAGE_MASK))
            p = env(v)->guest_ram(env(v)->ctx, v->id, gpa, len);
    }
    if (!p)
        i915_of(v)->st.ggtt_refused++;
    return p;
}

bool vgpu_i915_ctx_pml4(struct vgpu *v, uint32_t lrca, uint64_t *pml4)
{
    uint64_t st = (uint64_t)lrca + GEN9_LRC_STATE_OFFSET;
    uint32_t hi, lo;
    if (!vgpu_gm_read32(v, st + 4u * GEN9_CTX_PDP0_UDW, &hi) ||
        !vgpu_gm_read32(v, st + 4u * GEN9_CTX_PDP0_LDW, &lo))
        return false;
    *pml4 = (uint64_t)hi << 32 | lo;
    return true;
}

/* ---- the PV info page ---------------------------------------------------------------------- */

void vgpu_i915_g2v(struct vgpu *v, uint32_t what)
{
    struct vgpu_i915 *g = i915_of(v);
    uint64_t pml4 = (uint64_t)v->pv.pdp[0].hi << 32 | v->pv.pdp[0].lo;
    enum vgt_ppgtt_refusal why = VGT_PPGTT_R_NONE;
    switch (what) {
    case VGT_G2V_PPGTT_L4_PAGE_TABLE_CREATE:
        vgpu_i915_sync_oos(v);
        g->st.ppgtt_creates++;
        if (!g->pp || vgt_ppgtt_root_create(g->pp, pml4, NULL, &why) != VGT_PPGTT_OK) {
            g->st.ppgtt_refused++;
            vgpu_logf(v->dev, VGPU_LOG_WARN,
                      "vgpu %u: PPGTT at %#llx refused: %s (its contexts "
                      "fail their requests)",
                      v->id, (unsigned long long)pml4,
                      g->pp ? vgt_ppgtt_refusal_name(why) : "no shadow");
        }
        return;
    case VGT_G2V_PPGTT_L4_PAGE_TABLE_DESTROY:
        g->st.ppgtt_destroys++;
        if (g->pp)
            vgt_ppgtt_root_destroy(g->pp, pml4);
        return;
    default:
        /* L3 tables (never on a 48-bit PPGTT) and execlist context notices (GVT-g ignores
         * them too) need nothing. */
        return;
    }
}

/* ---- BAR0 ---------------------------------------------------------------------------------- */

static int engine_at(uint32_t off, uint32_t (*reg)(uint32_t base))
{
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++)
        if (off == reg(igpu_engine_base((enum igpu_engine)e)))
            return (int)e;
    return -1;
}

static uint32_t hws_pga_of(uint32_t b)
{
    return GEN9_RING_HWS_PGA(b);
}
static uint32_t elsp_of(uint32_t b)
{
    return GEN9_RING_ELSP(b);
}
static uint32_t ts_of(uint32_t b)
{
    return GEN9_RING_TIMESTAMP(b);
}
static uint32_t ts_udw_of(uint32_t b)
{
    return GEN9_RING_TIMESTAMP_UDW(b);
}

/* The fourth ELSP dword of the blitter submits, and its ring is scanned in that write's exit
 * (the other engines' work is read there but runs in the render loop). */
bool vgpu_i915_submits(const struct vgpu *v, uint32_t off, uint32_t val)
{
    return engine_at(off, elsp_of) == IGPU_BCS &&
           i915_of(v)->el[IGPU_BCS].elsp_n == GEN9_ELSP_DWORDS - 1u;
}

static void sync_busy(struct vgpu_i915 *g)
{
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++)
        vgt_regs_set_busy(&g->regs, (enum igpu_engine)e, vgt_el_active(&g->el[e]) != 0);
}

bool vgpu_i915_reg_read(struct vgpu *v, uint32_t off, uint32_t *val)
{
    struct vgpu_i915 *g = i915_of(v);
    int e;
    for (e = 0; e < (int)IGPU_NUM_GT_ENGINES; e++) {
        if (vgt_el_owns(&g->el[e], off)) {
            *val = vgt_el_read(&g->el[e], off);
            return true;
        }
    }
    if ((e = engine_at(off, hws_pga_of)) >= 0) {
        *val = g->hws_pga[e];
        return true;
    }
    if (engine_at(off, ts_of) >= 0 || engine_at(off, ts_udw_of) >= 0) {
        /* Every engine counts the vGPU's render clock (the blitter's, on the model). */
        uint64_t t = igpu_ns_to_ticks(env(v)->now_ns(env(v)->ctx),
                                      v->dev->cfg.igpu->info.timestamp_hz);
        *val = engine_at(off, ts_of) >= 0 ? (uint32_t)t : (uint32_t)(t >> 32);
        return true;
    }
    if (vgt_irq_owns(off)) {
        *val = vgt_irq_read(&g->irq, off);
        return true;
    }
    if (vgpu_i915_display_owns(g, off)) {
        *val = vgpu_i915_display_read(v, off);
        return true;
    }
    if (vgt_regs_owns(off)) {
        sync_busy(g);
        *val = vgt_regs_read(&g->regs, off);
        return true;
    }
    return false;
}

static void elsp_write(struct vgpu *v, enum igpu_engine e, uint32_t val)
{
    struct vgpu_i915 *g = i915_of(v);
    uint64_t desc = 0;
    enum vgt_el_result r = vgt_el_elsp_write(&g->el[e], val, &g->el_ops, &desc);
    switch (r) {
    case VGT_EL_NONE:
        return;
    case VGT_EL_STARTED:
    case VGT_EL_LITE_RESTORE:
        g->st.elsp[e]++;
        vgpu_i915_start(v, e, desc);
        break;
    case VGT_EL_QUEUED:
        g->st.elsp[e]++;
        break;
    default:
        g->st.elsp_refused++;
        vgpu_logf(v->dev, VGPU_LOG_WARN, "vgpu %u: %s ELSP submission refused: %s", v->id,
                  igpu_engine_name(e),
                  r == VGT_EL_E_QFULL ? "a list already waits" : "element 0 is not valid");
        break;
    }
    sync_busy(g);
}

/* GDRST: the guest resets engines (gen6_hw_domain_reset() after its RESET_CTL handshake). */
static void guest_engine_reset(struct vgpu *v, uint32_t engines)
{
    struct vgpu_i915 *g = i915_of(v);
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++) {
        if (!(engines & (1u << e)))
            continue;
        g->st.guest_resets++;
        vgt_el_reset(&g->el[e]);
        g->hung[e] = false;
        if (e != IGPU_BCS) {
            /* Its element and the submissions queued for it go, as on an engine reset. */
            vgpu_i915_mi_drop(v, (enum igpu_engine)e);
            vgpu_cpu_drop(v, (enum igpu_engine)e);
        } else {
            /* Its queued and running blitter work goes, as on an engine reset. */
            v->guest_reset = true;
            vgpu_reset(v->dev, v->id, "the guest reset its blitter (GDRST)");
            v->guest_reset = false;
            vgpu_i915_release_deferred(v);
        }
    }
    sync_busy(g);
}

bool vgpu_i915_reg_write(struct vgpu *v, uint32_t off, uint32_t val)
{
    struct vgpu_i915 *g = i915_of(v);
    int e;
    if ((e = engine_at(off, elsp_of)) >= 0) {
        elsp_write(v, (enum igpu_engine)e, val);
        return true;
    }
    for (e = 0; e < (int)IGPU_NUM_GT_ENGINES; e++) {
        if (vgt_el_owns(&g->el[e], off)) {
            vgt_el_write(&g->el[e], off, val);
            return true;
        }
    }
    if ((e = engine_at(off, hws_pga_of)) >= 0) {
        g->hws_pga[e] = val & ~(uint32_t)GEN9_GTT_PAGE_MASK;
        return true;
    }
    if (engine_at(off, ts_of) >= 0 || engine_at(off, ts_udw_of) >= 0)
        return true; /* the clock is not the guest's to set */
    if (vgt_irq_owns(off)) {
        if (vgt_irq_write(&g->irq, off, val))
            vgpu_i915_send_msi(v);
        return true;
    }
    if (vgpu_i915_display_owns(g, off)) {
        vgpu_i915_display_write(v, off, val);
        return true;
    }
    if (vgt_regs_owns(off)) {
        struct vgt_regs_action act;
        vgt_regs_write(&g->regs, off, val, &act);
        if (act.reset_engines)
            guest_engine_reset(v, act.reset_engines);
        return true;
    }
    return false;
}
