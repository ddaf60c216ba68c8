/* The vGPU device: creation, host-area carving, guest graphics-memory access, the scanner's
 * ranges, rejection bookkeeping and introspection. */
#include "vmm/vgpu/core/vgpu_internal.h"

#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOST_SHARE_MAX  (1u << 20)  /* host-area bytes one vGPU needs at most */
#define HOST_RING_BYTES (64u << 10) /* holds VGPU_DISPATCH_MAX slices and breadcrumbs */

void vgpu_logf(struct vgpu_dev *d, enum vgpu_log_level l, const char *fmt, ...)
{
    char msg[240];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (d->cfg.env.log)
        d->cfg.env.log(d->cfg.env.ctx, l, msg);
}

int vgpu_dev_create(const struct vgpu_dev_config *cfg, struct vgpu_dev **out)
{
    if (!cfg || !out || !cfg->gtt || !cfg->sched || !cfg->igpu || !cfg->env.guest_ram ||
        !cfg->env.now_ns || !cfg->env.gpu_run || !cfg->host.hva || cfg->max_vgpus == 0 ||
        cfg->max_vgpus > VGPU_MAX || (cfg->host.gm & (GEN9_GTT_PAGE_SIZE - 1)) ||
        cfg->host.bytes <= VGPU_RECORD_BYTES)
        return -1;
    struct vgpu_dev *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    d->cfg = *cfg;
    if (!d->cfg.render_budget_ns)
        d->cfg.render_budget_ns = 1000000;
    d->host_used = VGPU_RECORD_BYTES;
    d->host_share = (cfg->host.bytes - VGPU_RECORD_BYTES) / cfg->max_vgpus;
    if (d->host_share > HOST_SHARE_MAX)
        d->host_share = HOST_SHARE_MAX;
    d->host_share &= ~(uint64_t)(GEN9_GTT_PAGE_SIZE - 1);
    d->running = VGPU_MAX;
    d->predicted = VGPU_MAX;
    uint32_t ctc, ovr;
    if (!gen9_cs_timestamp_encode(cfg->igpu->info.timestamp_hz, &ctc, &ovr))
        vgpu_logf(d, VGPU_LOG_WARN,
                  "the GPU's timestamp rate %u Hz cannot be said in CTC_MODE: "
                  "guests reading CTC_MODE see 0",
                  cfg->igpu->info.timestamp_hz);
    if (vgpu_record_default_context(d) != 0 || vgpu_preempt_init(d) != 0 ||
        vgpu_cpu_engines_init(d) != 0) {
        free(d);
        return -1;
    }
    *out = d;
    return 0;
}

void vgpu_dev_destroy(struct vgpu_dev *d)
{
    if (!d)
        return;
    for (unsigned i = 0; i < VGPU_MAX; i++) {
        if (d->v[i]) {
            d->v[i]->ops->free(d->v[i]);
            free(d->v[i]->q);
            free(d->v[i]);
        }
    }
    vgpu_cpu_engines_free(d);
    free(d);
}

struct vgpu *vgpu_get(struct vgpu_dev *d, unsigned vm)
{
    return d && vm < VGPU_MAX ? d->v[vm] : NULL;
}

/* Host-area pieces of one vGPU: its shadow context (two pages), the page its breadcrumbs land
 * in, its ring, then as many batch-copy buffers as fit. */
static bool carve_host(struct vgpu *v)
{
    struct vgpu_dev *d = v->dev;
    uint64_t need = GEN9_LR_CONTEXT_OTHER_SIZE + GEN9_GTT_PAGE_SIZE + HOST_RING_BYTES +
                    VGPU_SHADOW_BYTES;
    if (d->host_share < need || d->host_used + d->host_share > d->cfg.host.bytes)
        return false;
    uint64_t off = d->host_used;
    d->host_used += d->host_share;
    uint8_t *base = (uint8_t *)d->cfg.host.hva;
    memset(base + off, 0, d->host_share);
    v->ctx_gm = d->cfg.host.gm + off;
    v->ctx_hva = base + off;
    off += GEN9_LR_CONTEXT_OTHER_SIZE;
    v->hwsp_gm = d->cfg.host.gm + off;
    v->hwsp_hva = base + off;
    off += GEN9_GTT_PAGE_SIZE;
    v->ring_gm = d->cfg.host.gm + off;
    v->ring_hva = base + off;
    v->ring_bytes = HOST_RING_BYTES;
    off += HOST_RING_BYTES;
    v->shadow_gm = d->cfg.host.gm + off;
    v->shadow_hva = base + off;
    v->n_shadow = (unsigned)((d->host_share - need) / VGPU_SHADOW_BYTES) + 1;
    if (v->n_shadow > VGPU_QUEUE_MAX)
        v->n_shadow = VGPU_QUEUE_MAX;
    return true;
}

static void init_pv(struct vgpu *v)
{
    memset(&v->pv, 0, sizeof v->pv);
    v->pv.magic = VGT_MAGIC;
    v->pv.version_major = VGT_VERSION_MAJOR;
    v->pv.version_minor = VGT_VERSION_MINOR;
    v->pv.vgt_id = v->id;
    const struct gtt_vgpu *g = gtt_vgpu_get(v->dev->cfg.gtt, v->id);
    v->pv.avail_rs.fence_num = g ? g->n_fences : 0;
    v->pv.tessera_balloon.magic = TESSERA_BALLOON_MAGIC;
    v->pv.tessera_balloon.slot_mib = (uint32_t)(v->dev->cfg.gtt->layout.slot_bytes >> 20);
    v->pv.tessera_move.magic = TESSERA_MOVE_MAGIC;
    v->pv.tessera_work.magic = TESSERA_WORK_MAGIC;
    v->pv.vgt_caps = v->ops->vgt_caps;
    vgpu_pv_update_ranges(v);
}

/* The registers every personality has (the personality resets its own). */
static void reset_registers(struct vgpu *v)
{
    memset(v->fw_req, 0, sizeof v->fw_req);
    memset(v->fence, 0, sizeof v->fence);
    v->n_other = 0;
}

/* ops->init() and the schedulers of its CPU engines; on failure nothing of it is left (v->ops
 * is then ops, v->pers whatever it was: the caller puts back what it had). */
static int start_personality(struct vgpu *v, const struct vgpu_personality *ops)
{
    v->ops = ops;
    if (ops->init(v) != 0)
        return -1;
    if (vgpu_cpu_engines_add(v) != 0) {
        ops->free(v);
        return -1;
    }
    return 0;
}

int vgpu_create(struct vgpu_dev *d, unsigned vm, uint32_t tile_w, uint32_t tile_h,
                const struct vgpu_personality *ops)
{
    if (!d || !ops || vm >= d->cfg.max_vgpus || d->v[vm] || !gtt_vgpu_get(d->cfg.gtt, vm))
        return -1;
    struct vgpu *v = calloc(1, sizeof *v);
    if (!v)
        return -1;
    v->dev = d;
    v->id = vm;
    v->tile_w = tile_w;
    v->tile_h = tile_h;
    v->ops = ops;
    v->q = calloc(VGPU_QUEUE_MAX, sizeof *v->q);
    if (!v->q || !carve_host(v) || vgpu_init_shadow_context(v) != 0) {
        vgpu_logf(d, VGPU_LOG_ERROR,
                  "vgpu %u: no host graphics memory or heap for its shadow state", vm);
        free(v->q);
        free(v);
        return -1;
    }
    v->host_ctx_id = vm + 1;
    v->st.first = (struct vgpu_first_frame){ .start_ns = vgpu_cpu_now(d) };
    reset_registers(v);
    init_pv(v);
    if (start_personality(v, ops) != 0) {
        vgpu_logf(d, VGPU_LOG_ERROR, "vgpu %u: its %s personality did not start", vm, ops->name);
        free(v->q);
        free(v);
        return -1;
    }
    d->v[vm] = v;
    return 0;
}

int vgpu_set_personality(struct vgpu *v, const struct vgpu_personality *ops)
{
    if (!v || !ops || v->q_len)
        return -1;
    if (v->ops == ops)
        return 0;
    /* The new state first: on failure the old one is still whole. */
    const struct vgpu_personality *old = v->ops;
    void *old_pers = v->pers;
    if (start_personality(v, ops) != 0) {
        vgpu_logf(v->dev, VGPU_LOG_ERROR, "vgpu %u: its %s personality did not start; it stays %s",
                  v->id, ops->name, old->name);
        v->ops = old;
        v->pers = old_pers;
        return -1;
    }
    void *new_pers = v->pers;
    v->pers = old_pers;
    old->free(v);
    v->pers = new_pers;
    v->pv.vgt_caps = ops->vgt_caps;
    return 0;
}

const char *vgpu_personality_name(const struct vgpu *v)
{
    return v ? v->ops->name : "none";
}

void vgpu_guest_reset(struct vgpu *v)
{
    v->guest_reset = true; /* nobody to tell: its engines start over */
    vgpu_reset(v->dev, v->id, "guest restarted");
    v->guest_reset = false;
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++)
        if (v->ops->cpu_engines & (1u << e))
            vgpu_cpu_drop(v, (enum igpu_engine)e);
    v->ops->reset(v);
    uint32_t disable = 0;
    gtt_vgpu_reset(v->dev->cfg.gtt, v->id, &disable); /* every fence, done or in progress */
    for (unsigned i = 0; i < 32; i++)
        if (disable & (1u << i))
            igpu_fence_write(v->dev->cfg.igpu, i, 0);
    reset_registers(v);
    v->st.first = (struct vgpu_first_frame){ .start_ns = vgpu_cpu_now(v->dev) };
    vgpu_move_forget(v);
    struct tessera_balloon_if keep = v->pv.tessera_balloon;
    struct tessera_move_if keep_move = v->pv.tessera_move;
    init_pv(v);
    v->pv.tessera_balloon.generation = keep.generation;
    v->pv.tessera_move.request = keep_move.request; /* a new run starts with no request */
    v->pv.tessera_move.done = keep_move.request;
    v->pv.tessera_move.moves = keep_move.moves;
}

/* ---- guest graphics memory through the vGPU's own GGTT entries ---------------------------- */

uint8_t *vgpu_gm_page_ptr(const struct vgpu *v, uint64_t gm, size_t len, bool *mapped)
{
    uint64_t pte;
    bool present = (gm >> GEN9_GTT_PAGE_SHIFT) <= UINT32_MAX &&
                   gtt_guest_read(v->dev->cfg.gtt, v->id, (uint32_t)(gm >> GEN9_GTT_PAGE_SHIFT),
                                  &pte) == 0 &&
                   (pte & GEN9_GGTT_PTE_PRESENT);
    if (mapped)
        *mapped = present;
    if (!present)
        return NULL;
    uint64_t gpa = (pte & GEN9_GGTT_PTE_ADDR_MASK) + (gm & (GEN9_GTT_PAGE_SIZE - 1));
    return v->dev->cfg.env.guest_ram(v->dev->cfg.env.ctx, v->id, gpa, len);
}

static bool gm_access(const struct vgpu *v, uint64_t gm, void *buf, size_t len, bool write)
{
    uint8_t *b = buf;
    if (gm >= v->dev->cfg.gtt->layout.ggtt_bytes / GEN9_GGTT_PTE_SIZE * GEN9_GTT_PAGE_SIZE)
        return false;
    while (len) {
        size_t chunk = GEN9_GTT_PAGE_SIZE - (gm & (GEN9_GTT_PAGE_SIZE - 1));
        if (chunk > len)
            chunk = len;
        uint8_t *p = vgpu_gm_page_ptr(v, gm, chunk, NULL);
        if (!p)
            return false;
        if (write)
            memcpy(p, b, chunk);
        else
            memcpy(b, p, chunk);
        gm += chunk;
        b += chunk;
        len -= chunk;
    }
    return true;
}

bool vgpu_gm_read(const struct vgpu *v, uint64_t gm, void *buf, size_t len)
{
    return gm_access(v, gm, buf, len, false);
}

bool vgpu_gm_write(struct vgpu *v, uint64_t gm, const void *buf, size_t len)
{
    return gm_access(v, gm, (void *)buf, len, true);
}

bool vgpu_gm_read32(const struct vgpu *v, uint64_t gm, uint32_t *val)
{
    uint8_t b[4];
    if (!vgpu_gm_read(v, gm, b, 4))
        return false;
    *val = rd32le(b);
    return true;
}

bool vgpu_gm_write32(struct vgpu *v, uint64_t gm, uint32_t val)
{
    uint8_t b[4];
    wr32le(b, val);
    return vgpu_gm_write(v, gm, b, 4);
}

/* What the scanner lets a workload touch: the low window and every slot the vGPU holds now. */
void vgpu_ranges_refresh(struct vgpu *v)
{
    const struct gtt *g = v->dev->cfg.gtt;
    const struct gtt_vgpu *gv = gtt_vgpu_get(g, v->id);
    size_t n = 0;
    if (gv && gv->low.size)
        v->ranges[n++] = (struct igpu_scan_range){ gv->low.start, gv->low.size };
    unsigned slots[VGPU_MAX_RANGES];
    unsigned ns = gtt_vgpu_slots(g, v->id, slots, VGPU_MAX_RANGES - 1);
    for (unsigned i = 0; i < ns; i++)
        v->ranges[n++] = (struct igpu_scan_range){
            g->layout.slots.start + (uint64_t)slots[i] * g->layout.slot_bytes, g->layout.slot_bytes
        };
    v->n_ranges = igpu_scan_ranges_normalize(v->ranges, n);
}

void vgpu_note_reject(struct vgpu *v, uint32_t code, const char *fmt, ...)
{
    struct vgpu_reject *r = &v->rejects[v->reject_pos];
    v->reject_pos = (v->reject_pos + 1) % VGPU_REJECT_LOG;
    if (v->n_rejects < VGPU_REJECT_LOG)
        v->n_rejects++;
    r->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
    vgpu_logf(v->dev, VGPU_LOG_WARN, "vgpu %u: %s", v->id, r->why);
}

const char *vgpu_reject_name(uint32_t code)
{
    switch (code) {
    case TESSERA_REJECT_NONE:
        return "none";
    case TESSERA_REJECT_BAD_CONTEXT:
        return "bad context";
    case TESSERA_REJECT_QUEUE_FULL:
        return "queue full";
    case TESSERA_REJECT_ENGINE:
        return "engine not offered";
    case TESSERA_REJECT_RESET:
        return "engine reset";
    case TESSERA_REJECT_SHRUNK:
        return "graphics memory ballooned away";
    case TESSERA_REJECT_GPU_FAULT:
        return "GPU fault";
    default:
        return code < IGPU_SCAN_E_COUNT ? igpu_scan_strerror((enum igpu_scan_err)code) : "?";
    }
}

/* ---- introspection ------------------------------------------------------------------------ */

void vgpu_get_info(const struct vgpu *v, struct vgpu_info *out)
{
    memset(out, 0, sizeof *out);
    if (!v)
        return;
    out->exists = true;
    out->vm = v->id;
    out->low = (struct gtt_range){ v->pv.avail_rs.mappable_gmadr.base,
                                   v->pv.avail_rs.mappable_gmadr.size };
    out->high = (struct gtt_range){ v->pv.avail_rs.nonmappable_gmadr.base,
                                    v->pv.avail_rs.nonmappable_gmadr.size };
    out->slots = v->pv.tessera_balloon.slots;
    out->fences = v->pv.avail_rs.fence_num;
    out->personality = v->ops->name;
    out->queued = v->q_len;
    struct vgpu_plane p;
    out->display_enabled = vgpu_plane_get(v, &p);
    out->fb_width = p.width;
    out->fb_height = p.height;
    out->fb_stride = p.stride;
    out->fb_gm = p.gm;
    out->st = v->st;
    out->n_rejects = v->n_rejects;
    for (unsigned i = 0; i < v->n_rejects; i++)
        out->rejects[i] = v->rejects[(v->reject_pos + VGPU_REJECT_LOG - 1 - i) % VGPU_REJECT_LOG];
}

void vgpu_render_stats_get(const struct vgpu_dev *d, struct vgpu_render_stats *out)
{
    *out = d->st;
    out->ahead_used = d->cfg.gtt->st.ahead_used;
    out->ahead_wasted = d->cfg.gtt->st.ahead_wasted;
    out->entries_move = d->cfg.gtt->st.entries_move;
}

uint64_t vgpu_render_retired(const struct vgpu_dev *d)
{
    return d->st.retired;
}

unsigned vgpu_render_owner(const struct vgpu_dev *d)
{
    return d->running;
}

uint64_t vgpu_render_cpu_ns(const struct vgpu_dev *d, unsigned vm)
{
    const struct vgpu *v = d && vm < VGPU_MAX ? d->v[vm] : NULL;
    return v ? v->st.render_cpu_ns + v->st.copy_cpu_ns : 0;
}

void vgpu_render_charge_cpu(struct vgpu_dev *d, unsigned vm, uint64_t cpu_ns)
{
    struct vgpu *v = d && vm < VGPU_MAX ? d->v[vm] : NULL;
    if (v)
        v->st.render_cpu_ns += cpu_ns;
}

bool vgpu_plane_get(const struct vgpu *v, struct vgpu_plane *out)
{
    memset(out, 0, sizeof *out);
    return v && v->ops->plane_get && v->ops->plane_get(v, out);
}

size_t vgpu_describe(const struct vgpu *v, char *buf, size_t len)
{
    if (len)
        buf[0] = 0;
    return v && v->ops->describe ? v->ops->describe(v, buf, len) : 0;
}

bool vgpu_table_write(struct vgpu *v, uint64_t gpa)
{
    return v && v->ops->protected_write && v->ops->protected_write(v, gpa);
}
