/* Execlist submission, the part every personality shares: a guest context's ring bytes become
 * scanned workloads on the render scheduler (or a refusal the guest is told about), and
 * workloads retire back to the guest in order, through its personality.  How an ELSP write
 * becomes ring bytes to queue is the personality's (vmm/vgpu/kiosk/, vmm/vgpu/i915/).
 *
 * The guest's ring bytes between its context's RING_HEAD and the new RING_TAIL are copied out
 * (so the guest cannot change them after the check), every batch they start is copied into a
 * host-area buffer by the scanner, and only those copies ever reach the GPU (docs/scanner.md). */
#include "vmm/vgpu/core/vgpu_internal.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define SCAN_MAX_BATCHES 16u

static int scan_read(void *ctx, uint64_t gm, void *dst, size_t len)
{
    return vgpu_gm_read(ctx, gm, dst, len) ? 0 : -1;
}

static bool in_ranges(const struct vgpu *v, uint64_t gm, uint64_t len)
{
    return igpu_scan_ranges_contain(v->ranges, v->n_ranges, gm, len);
}

static int shadow_take(struct vgpu *v)
{
    for (unsigned i = 0; i < v->n_shadow; i++) {
        if (!(v->shadow_busy & (1ull << i))) {
            v->shadow_busy |= 1ull << i;
            return (int)i;
        }
    }
    return -1;
}

void vgpu_retire(struct vgpu *v, uint32_t lrca, uint32_t ctx_id, uint32_t tail, uint32_t code)
{
    v->ops->retired(v, &(struct vgpu_retired){ lrca, ctx_id, tail, code, false });
}

void vgpu_count_submission(struct vgpu *v)
{
    v->st.submitted++;
    v->pv.tessera_balloon.submitted++;
}

void vgpu_retire_head(struct vgpu *v, uint32_t code)
{
    struct vgpu_workload *w = &v->q[v->q_head];
    if (!w->is_void)
        v->shadow_busy &= ~(1ull << w->shadow);
    /* Off the queue first: a personality may start the next element at retirement, and its
     * work queues behind. */
    v->q_head = (v->q_head + 1) % VGPU_QUEUE_MAX;
    v->q_len--;
    uint32_t c = w->is_void ? w->code : code;
    if (c == TESSERA_REJECT_NONE && !w->is_void) {
        v->dev->st.retired++;
        if (!v->st.first.done) {
            v->st.first.done = true;
            v->st.first.done_ns = vgpu_cpu_now(v->dev);
        }
        if (w->dispatch_ns) { /* 0: no host clock (host tests) */
            uint64_t now = vgpu_cpu_now(v->dev);
            v->st.timed++;
            v->st.wait_ns += w->dispatch_ns - w->submit_ns;
            v->st.turnaround_ns += now - w->submit_ns;
        }
    }
    v->ops->retired(v, &(struct vgpu_retired){ w->lrca, w->ctx_id, w->tail, c,
                                               w->user_interrupt && c == TESSERA_REJECT_NONE });
}

void vgpu_refuse(struct vgpu *v, uint32_t lrca, uint32_t ctx_id, uint32_t tail, uint32_t code)
{
    v->st.rejected++;
    if (v->q_len == 0 || v->q_len == VGPU_QUEUE_MAX) {
        vgpu_retire(v, lrca, ctx_id, tail, code);
        return;
    }
    struct vgpu_workload *w = &v->q[(v->q_head + v->q_len) % VGPU_QUEUE_MAX];
    memset(w, 0, offsetof(struct vgpu_workload, cmds));
    w->is_void = true;
    w->code = code;
    w->lrca = lrca;
    w->ctx_id = ctx_id;
    w->tail = tail;
    v->q_len++;
}

bool vgpu_read_context(struct vgpu *v, uint32_t lrca, struct vgpu_guest_ring *r, char *why,
                       size_t n)
{
    uint64_t st = (uint64_t)lrca + GEN9_LRC_STATE_OFFSET;
    uint32_t head, tail, start, ctl;
    if (!in_ranges(v, lrca, GEN9_LR_CONTEXT_OTHER_SIZE)) {
        snprintf(why, n, "context image at %#x is outside the vGPU's graphics memory", lrca);
        return false;
    }
    if (!vgpu_gm_read32(v, st + 4u * GEN9_CTX_RING_HEAD, &head) ||
        !vgpu_gm_read32(v, st + 4u * GEN9_CTX_RING_TAIL, &tail) ||
        !vgpu_gm_read32(v, st + 4u * GEN9_CTX_RING_START, &start) ||
        !vgpu_gm_read32(v, st + 4u * GEN9_CTX_RING_CTL, &ctl)) {
        snprintf(why, n, "context image at %#x is not mapped by its GGTT entries", lrca);
        return false;
    }
    r->start = start & ~(uint32_t)GEN9_GTT_PAGE_MASK;
    r->size = (ctl & GEN9_RING_NR_PAGES) + GEN9_GTT_PAGE_SIZE;
    r->head = head & GEN9_HEAD_ADDR;
    r->tail = tail & GEN9_TAIL_ADDR;
    if (!(ctl & GEN9_RING_VALID) || !in_ranges(v, r->start, r->size) || r->head >= r->size ||
        r->tail >= r->size) {
        snprintf(why, n,
                 "context %#x: ring %#x size %#x head %#x tail %#x is not a valid ring in its "
                 "graphics memory",
                 lrca, r->start, r->size, r->head, r->tail);
        return false;
    }
    return true;
}

/* Scans the workload's slice (w->cmds, rewritten in place) with its batches copied into shadow
 * buffer k, against the vGPU's current ranges. */
static enum igpu_scan_err scan(struct vgpu *v, struct vgpu_workload *w, unsigned k, uint32_t n_dw,
                               char *why, size_t whylen)
{
    struct igpu_scan_config sc = {
        .engine = IGPU_BCS,
        .ranges = v->ranges,
        .n_ranges = v->n_ranges,
        .regs = igpu_scan_default_regs_bcs,
        .n_regs = igpu_scan_default_regs_bcs_count,
        .max_depth = IGPU_SCAN_HW_MAX_DEPTH,
        .max_batches = SCAN_MAX_BATCHES,
        .read = scan_read,
        .read_ctx = v,
        .shadow = (uint32_t *)(void *)(v->shadow_hva + (size_t)k * VGPU_SHADOW_BYTES),
        .shadow_dw = VGPU_SHADOW_BYTES / 4u,
        .shadow_gm = v->shadow_gm + (uint64_t)k * VGPU_SHADOW_BYTES,
    };
    if (v->ops->scan_config)
        v->ops->scan_config(v, w->pml4, w->lrca, &sc);
    struct igpu_scan_result res;
    uint64_t t0 = vgpu_cpu_now(v->dev);
    enum igpu_scan_err e = igpu_scan_ring(&sc, w->cmds, n_dw, &res);
    uint64_t ns = vgpu_cpu_now(v->dev) - t0;
    struct vgpu_stats *st = &v->st;
    st->scan_ns += ns;
    st->scan_max_ns = ns > st->scan_max_ns ? ns : st->scan_max_ns;
    st->scan_est_ns = ns > st->scan_est_ns ? ns : st->scan_est_ns - st->scan_est_ns / 8u;
    if (e != IGPU_SCAN_OK) {
        igpu_scan_error_format(&res.err, why, whylen);
    } else {
        w->est_ns = res.est_cost_ns;
        w->user_interrupt = res.user_interrupts != 0;
        w->slots_touched = vgpu_slot_mask(v, v->ranges, v->n_ranges, res.ranges_touched);
    }
    return e;
}

uint64_t vgpu_slot_mask(const struct vgpu *v, const struct igpu_scan_range *r, size_t n,
                        const uint64_t *which)
{
    const struct gtt_layout *l = &v->dev->cfg.gtt->layout;
    uint64_t mask = 0;
    for (size_t i = 0; i < n; i++) {
        if (which && (i >= 128 || !(which[i / 64] >> (i % 64) & 1u)))
            continue;
        uint64_t lo = r[i].start, hi = r[i].start + r[i].size;
        if (hi <= l->slots.start || lo >= l->slots.start + l->slots.size)
            continue; /* the low window: balloons never take it */
        if (lo < l->slots.start)
            lo = l->slots.start;
        for (uint64_t s = (lo - l->slots.start) / l->slot_bytes;
             s < l->n_slots && l->slots.start + s * l->slot_bytes < hi; s++) {
            if (s >= 64)
                return UINT64_MAX;
            mask |= 1ull << s;
        }
    }
    return mask;
}

void vgpu_rescan_queued(struct vgpu *v)
{
    for (unsigned i = 0; i < v->q_len; i++) {
        struct vgpu_workload *w = &v->q[(v->q_head + i) % VGPU_QUEUE_MAX];
        if (w->is_void || w->inflight || w->done)
            continue;
        char why[160];
        memcpy(w->cmds, w->orig, 4u * w->n_dw);
        if (scan(v, w, w->shadow, w->n_dw, why, sizeof why) == IGPU_SCAN_OK)
            w->range_gen = v->range_gen;
        else
            vgpu_note_reject(v, TESSERA_REJECT_SHRUNK,
                             "queued workload dropped: its graphics memory "
                             "was ballooned away (%s)",
                             why);
    }
}

/* A context with work still in the vGPU (queued,
 * on the engine, or waiting in the rest) goes on after its newest workload: the engine's head
 * will be there (a lite restore appends to the running context).  Any other context starts at
 * the RING_HEAD of its image, as the engine loads it: retirement saves the head there, and a
 * new context at a freed one's address brings its own (i915 reuses context addresses: every
 * run of an IGT program had the same LRCA, and a tail remembered by address scanned the old
 * context's ring bytes in the new one). */
void vgpu_resume_head(const struct vgpu *v, uint32_t lrca, struct vgpu_guest_ring *r)
{
    bool busy = false;
    uint32_t tail = 0;
    for (unsigned i = 0; i < v->q_len; i++) {
        const struct vgpu_workload *w = &v->q[(v->q_head + i) % VGPU_QUEUE_MAX];
        if (w->lrca == lrca) {
            busy = true;
            tail = w->tail;
        }
    }
    if (v->rest.bytes && v->rest.lrca == lrca) {
        busy = true;
        tail = v->rest.r.tail;
    }
    if (busy && tail < r->size)
        r->head = tail;
}

/* Ring bytes [head, head + bytes) (wrapping at r->size) that one workload of v->rest takes:
 * whole commands, at most VGPU_SLICE_MAX_DW dwords and VGPU_SLICE_MAX_BATCHES batch starts.
 * i915 puts every request it queued while its context waited into one tail update (a lite
 * restore), up to its whole ring (16 KiB for user contexts: intel_context_set_gem()), and the
 * hardware takes any tail; gem_exec_nop's 8 KiB of no-op requests were refused before.  A
 * header that cannot be read, or no whole command that fits, gives what fits: the scanner
 * refuses what is cut. */
static uint32_t slice_bytes(struct vgpu *v, const struct vgpu_guest_ring *r, uint32_t head,
                            uint32_t bytes)
{
    uint32_t off = 0, batches = 0, limit = VGPU_SLICE_MAX_DW * 4u;
    while (off < bytes) {
        uint32_t hdr, n;
        if (!vgpu_gm_read32(v, (uint64_t)r->start + (head + off) % r->size, &hdr))
            break;
        n = gen9_cmd_length_dw(hdr);
        if (n == 0 || off + 4u * n > limit)
            break;
        if (gen9_cmd_type(hdr) == GEN9_CMD_TYPE_MI &&
            gen9_mi_opcode(hdr) == GEN9_MI_BATCH_BUFFER_START_OP &&
            batches++ == VGPU_SLICE_MAX_BATCHES)
            break;
        off += 4u * n;
    }
    if (off == 0 || off > bytes)
        off = bytes < limit ? bytes : limit;
    return off;
}

bool vgpu_queue_slice(struct vgpu *v, uint32_t lrca, uint32_t ctx_id, uint64_t pml4,
                      const struct vgpu_guest_ring *r, uint32_t head, uint32_t bytes)
{
    struct vgpu_dev *d = v->dev;
    char why[160];
    int k = v->q_len < VGPU_QUEUE_MAX ? shadow_take(v) : -1;
    if (k < 0) {
        vgpu_note_reject(v, TESSERA_REJECT_QUEUE_FULL, "workload refused: %u workloads queued",
                         v->q_len);
        vgpu_refuse(v, lrca, ctx_id, r->tail, TESSERA_REJECT_QUEUE_FULL);
        return false;
    }
    struct vgpu_workload *w = &v->q[(v->q_head + v->q_len) % VGPU_QUEUE_MAX];
    uint32_t first = r->size - head < bytes ? r->size - head : bytes;
    if (!vgpu_gm_read(v, (uint64_t)r->start + head, w->cmds, first) ||
        !vgpu_gm_read(v, r->start, (uint8_t *)w->cmds + first, bytes - first)) {
        v->shadow_busy &= ~(1ull << k);
        vgpu_note_reject(v, TESSERA_REJECT_BAD_CONTEXT, "workload refused: ring %#x not mapped",
                         r->start);
        vgpu_refuse(v, lrca, ctx_id, r->tail, TESSERA_REJECT_BAD_CONTEXT);
        return false;
    }

    memcpy(w->orig, w->cmds, bytes);
    w->lrca = lrca;
    w->pml4 = pml4;
    enum igpu_scan_err e = scan(v, w, (unsigned)k, bytes / 4u, why, sizeof why);
    if (e != IGPU_SCAN_OK) {
        v->shadow_busy &= ~(1ull << k);
        vgpu_note_reject(v, (uint32_t)e, "workload refused by the scanner: %s", why);
        vgpu_refuse(v, lrca, ctx_id, r->tail, (uint32_t)e);
        return false;
    }
    w->id = v->next_id + 1;
    w->is_void = w->inflight = w->done = false;
    w->code = TESSERA_REJECT_NONE;
    w->n_dw = bytes / 4u;
    w->shadow = (unsigned)k;
    w->lrca = lrca;
    w->ctx_id = ctx_id;
    w->tail = (head + bytes) % r->size;
    w->range_gen = v->range_gen;
    w->submit_ns = vgpu_cpu_now(d);
    w->dispatch_ns = 0;
    if (!v->st.first.submitted) {
        v->st.first.submitted = true;
        v->st.first.submit_ns = w->submit_ns;
    }
    int rc = sched_submit(d->cfg.sched, v->id, &(struct sched_workload){ w->id, w->est_ns });
    if (rc != SCHED_OK) {
        v->shadow_busy &= ~(1ull << k);
        vgpu_note_reject(v, TESSERA_REJECT_QUEUE_FULL, "workload refused by the scheduler: %s",
                         sched_strerror(rc));
        vgpu_refuse(v, lrca, ctx_id, r->tail, TESSERA_REJECT_QUEUE_FULL);
        return false;
    }
    v->next_id = w->id;
    v->q_len++;
    v->st.queued++;
    return true;
}

static bool shadow_free(const struct vgpu *v)
{
    for (unsigned i = 0; i < v->n_shadow; i++)
        if (!(v->shadow_busy & (1ull << i)))
            return true;
    return false;
}

void vgpu_queue_rest(struct vgpu *v)
{
    struct vgpu_rest *s = &v->rest;
    while (s->bytes && v->q_len < VGPU_QUEUE_MAX && shadow_free(v)) {
        uint32_t take = slice_bytes(v, &s->r, s->head, s->bytes);
        uint32_t head = s->head;
        s->head = (s->head + take) % s->r.size;
        s->bytes -= take;
        if (!vgpu_queue_slice(v, s->lrca, s->ctx_id, s->pml4, &s->r, head, take))
            s->bytes = 0; /* refused up to its tail: the rest goes with it */
    }
}
