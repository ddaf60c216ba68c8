/* Execlist submission on the blitter (docs/vgpu-abi.md "Submitting work"), the way i915 does
 * it for one context: a logical ring context image (igpu_lrc_init_state, the same function the
 * hypervisor's model uses), a ring, a status page, and for every workload the commands, a
 * breadcrumb, the new tail in the image's RING_TAIL and an ELSP write.
 *
 * Completion: each workload ends with MI_FLUSH_DW storing its seqno into slot seqno % 64 of the
 * breadcrumb page (i915's fini breadcrumb for the copy engines is the same MI_FLUSH_DW
 * post-sync store).  One slot per seqno, not one shared counter, so a workload that never ran
 * is still recognised after a later one succeeded.  The vGPU writes RING_HEAD = the workload's
 * tail into the context image when it retires it (ran, refused or dropped by a reset); a
 * retired workload whose slot does not hold its seqno did not run, and the extension's
 * counters say why. */
#include "guests/lib/vgpu.h"
#include "guests/lib/vgpu_internal.h"

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/igpu.h"

#include <inttypes.h>
#include <string.h>

#define EXT_FIELD(f)  ((uint32_t)offsetof(struct tessera_balloon_if, f))
#define WORK_FIELD(f) ((uint32_t)(TESSERA_WORK_OFFSET + offsetof(struct tessera_work_if, f)))
#define STATE_DW      (VGPU_PAGE / 4u)
/* MI_FLUSH_DW post-sync addresses are qword aligned and must have bit 5 clear (i915
 * gen8_emit_ggtt_write(): "w/a: bit 5 needs to be zero"): one slot per 64 bytes. */
#define BC_SLOT_BYTES 64u
#define RING_ALIGN    8u  /* RING_TAIL is qword aligned (GEN9_TAIL_ADDR) */
#define POLL_US       50u /* between polls; each sleep is at least one HLT (a yield) */
#define CTX_ID        1u  /* the guest's only context */
#define FLUSH_DW      GEN9_MI_FLUSH_DW_DW_LEN

static uint32_t *ctx_state(const struct vgpu *v)
{
    return (uint32_t *)((uintptr_t)v->ctx.gpa + GEN9_LRC_STATE_OFFSET);
}

static uint32_t *bc_slot(const struct vgpu *v, uint32_t seqno)
{
    return (uint32_t *)((uintptr_t)v->bc.gpa + (seqno % VGPU_BC_SLOTS) * BC_SLOT_BYTES);
}

static uint64_t bc_slot_gm(const struct vgpu *v, uint32_t seqno)
{
    return v->bc.gm + (seqno % VGPU_BC_SLOTS) * BC_SLOT_BYTES;
}

const char *vgpu_result_name(enum vgpu_result r)
{
    switch (r) {
    case VGPU_OK:
        return "ok";
    case VGPU_REJECTED:
        return "rejected";
    case VGPU_RESET:
        return "reset";
    case VGPU_TIMEOUT:
        return "timeout";
    default:
        return "error";
    }
}

bool vgpu_ring_init(struct vgpu *v)
{
    if (!vgpu_bo_alloc(v, &v->ctx, GEN9_LR_CONTEXT_OTHER_SIZE, VGPU_GM_LOW) ||
        !vgpu_bo_alloc(v, &v->ring, VGPU_RING_SIZE, VGPU_GM_LOW) ||
        !vgpu_bo_alloc(v, &v->hws, VGPU_PAGE, VGPU_GM_LOW) ||
        !vgpu_bo_alloc(v, &v->bc, VGPU_PAGE, VGPU_GM_LOW))
        return false;
    int rc = igpu_lrc_init_state(ctx_state(v), STATE_DW, IGPU_BCS, NULL, (uint32_t)v->ring.gm,
                                 VGPU_RING_SIZE, 0, 0);
    if (rc != IGPU_OK) {
        vgpu_complain(v, "context image: %s", igpu_strerror(rc));
        return false;
    }
    for (uint32_t i = 0; i < VGPU_RING_SIZE / 4u; i++)
        ((uint32_t *)vgpu_bo_cpu(&v->ring))[i] = GEN9_MI_NOOP;
    v->ctx_id = CTX_ID;
    v->tail = v->retired_tail = 0;
    vgpu_write32(v, GEN9_RING_HWS_PGA(GEN9_BCS_BASE), (uint32_t)v->hws.gm);
    return true;
}

void vgpu_ring_moved(struct vgpu *v)
{
    vgpu_ram_wr32(&ctx_state(v)[GEN9_CTX_RING_START], (uint32_t)v->ring.gm);
    vgpu_barrier();
    vgpu_write32(v, GEN9_RING_HWS_PGA(GEN9_BCS_BASE), (uint32_t)v->hws.gm);
}

static void record(struct vgpu *v, uint32_t seqno, enum vgpu_result r, uint32_t reason)
{
    v->outcomes[seqno % VGPU_OUTCOMES] = (struct vgpu_outcome){ seqno, r, reason };
    switch (r) {
    case VGPU_OK:
        v->stats.completed++;
        break;
    case VGPU_REJECTED:
        v->stats.rejected++;
        break;
    case VGPU_RESET:
        v->stats.resets++;
        break;
    default:
        break;
    }
    v->last_retired_seqno = seqno;
}

/* Why a retired workload did not run: a reset while it was in flight, else the last
 * refusal the vGPU recorded. */
static void classify(struct vgpu *v, const struct vgpu_request *rq)
{
    uint32_t resets = vgpu_ext_read(v, EXT_FIELD(resets));
    uint32_t last = vgpu_ext_read(v, EXT_FIELD(last_reject));
    if (resets != rq->resets || last == TESSERA_REJECT_RESET)
        record(v, rq->seqno, VGPU_RESET, TESSERA_REJECT_RESET);
    else
        record(v, rq->seqno, VGPU_REJECTED, last);
}

unsigned vgpu_poll(struct vgpu *v)
{
    if (v->n_inflight == 0)
        return 0;
    /* RING_HEAD first: the vGPU writes it after the workload's breadcrumb, so a breadcrumb read
     * afterwards is up to date for every workload the head says is retired. */
    uint32_t head = vgpu_ram_rd32(&ctx_state(v)[GEN9_CTX_RING_HEAD]) & GEN9_HEAD_ADDR;
    vgpu_barrier();
    int last = -1;
    for (unsigned i = 0; i < v->n_inflight; i++)
        if (v->inflight[i].tail == head)
            last = (int)i;
    if (last < 0)
        return v->n_inflight;
    for (int i = 0; i <= last; i++) {
        const struct vgpu_request *rq = &v->inflight[i];
        if (vgpu_ram_rd32(bc_slot(v, rq->seqno)) == rq->seqno)
            record(v, rq->seqno, VGPU_OK, TESSERA_REJECT_NONE);
        else
            classify(v, rq);
    }
    v->retired_tail = head;
    v->n_inflight -= (unsigned)(last + 1);
    memmove(&v->inflight[0], &v->inflight[last + 1], v->n_inflight * sizeof v->inflight[0]);
    return v->n_inflight;
}

static bool find_outcome(const struct vgpu *v, uint32_t seqno, struct vgpu_outcome *out)
{
    const struct vgpu_outcome *o = &v->outcomes[seqno % VGPU_OUTCOMES];
    if (o->seqno != seqno)
        return false;
    *out = *o;
    return true;
}

static bool in_flight(const struct vgpu *v, uint32_t seqno)
{
    for (unsigned i = 0; i < v->n_inflight; i++)
        if (v->inflight[i].seqno == seqno)
            return true;
    return false;
}

static uint32_t work_read(const struct vgpu *v, uint32_t field)
{
    return vgpu_read32(v, VGT_PVINFO_PAGE + field);
}

/* The GPU time the vGPU says the guest's work has used, in us (0 without the extension). */
static uint32_t work_gpu_us(const struct vgpu *v)
{
    return work_read(v, WORK_FIELD(magic)) == TESSERA_WORK_MAGIC ? work_read(v, WORK_FIELD(gpu_us))
                                                                 : 0;
}

/* A wait's timeout passed: is the GPU only busy?  Yes if the guest's work is queued behind
 * other guests' work, or ran since *gpu_us was read (which is updated).  Two MMIO reads, once
 * per timeout, not per poll. */
static bool gpu_busy(const struct vgpu *v, uint32_t *gpu_us)
{
    if (work_read(v, WORK_FIELD(magic)) != TESSERA_WORK_MAGIC)
        return false;
    uint32_t waiting = work_read(v, WORK_FIELD(waiting)), now = work_read(v, WORK_FIELD(gpu_us));
    bool ran = now != *gpu_us;
    *gpu_us = now;
    return waiting || ran;
}

enum vgpu_result vgpu_wait(struct vgpu *v, uint32_t seqno, uint64_t timeout_us,
                           struct vgpu_outcome *out)
{
    struct vgpu_outcome o = { seqno, VGPU_ERROR, 0 };
    uint64_t start = guest_now_us(), deadline = start + timeout_us;
    uint32_t gpu_us = 0;
    bool gpu_us_read = false;
    for (;;) {
        vgpu_poll(v);
        if (find_outcome(v, seqno, &o))
            break;
        if (!in_flight(v, seqno)) {
            o.result = VGPU_ERROR; /* never submitted, or retired too long ago */
            break;
        }
        if (!gpu_us_read) {
            /* Where the GPU time of its work stood when the wait began to sleep, to tell at
             * the timeout whether it ran meanwhile (one MMIO read per wait that sleeps). */
            gpu_us = work_gpu_us(v);
            gpu_us_read = true;
        }
        uint64_t now = guest_now_us();
        if (now >= deadline) {
            if (now - start < VGPU_WAIT_BUSY_MAX_US && gpu_busy(v, &gpu_us)) {
                v->stats.busy_waits++;
                deadline = now + timeout_us;
                continue;
            }
            o.result = VGPU_TIMEOUT;
            v->stats.timeouts++;
            break;
        }
        v->stats.waits++;
        guest_sleep_us(POLL_US);
    }
    if (out)
        *out = o;
    return o.result;
}

enum vgpu_result vgpu_wait_idle(struct vgpu *v, uint64_t timeout_us)
{
    enum vgpu_result worst = VGPU_OK;
    while (v->n_inflight) {
        enum vgpu_result r = vgpu_wait(v, v->inflight[0].seqno, timeout_us, NULL);
        if (r == VGPU_TIMEOUT)
            return r;
        if (r != VGPU_OK)
            worst = r;
    }
    return worst;
}

static void ring_put(struct vgpu *v, uint32_t dw)
{
    uint32_t *ring = vgpu_bo_cpu(&v->ring);
    vgpu_ram_wr32(&ring[v->tail / 4u], dw);
    v->tail = (v->tail + 4u) % VGPU_RING_SIZE;
}

static uint32_t ring_used(const struct vgpu *v)
{
    return (v->tail + VGPU_RING_SIZE - v->retired_tail) % VGPU_RING_SIZE;
}

uint32_t vgpu_submit(struct vgpu *v, const uint32_t *cmds, uint32_t n)
{
    uint32_t bytes = (n + FLUSH_DW) * 4u;
    bytes = (bytes + RING_ALIGN - 1u) & ~(RING_ALIGN - 1u);
    /* At most half the ring, so the padding to the ring's end plus the workload always fit
     * in an idle ring. */
    if (n > VGPU_SUBMIT_MAX_DW || bytes > VGPU_RING_SIZE / 2u) {
        vgpu_complain(v, "workload of %" PRIu32 " dwords does not fit the ring", n);
        return 0;
    }
    for (;;) {
        vgpu_poll(v);
        uint32_t pad = v->tail + bytes > VGPU_RING_SIZE ? VGPU_RING_SIZE - v->tail : 0;
        /* Keep one qword free so a full ring is never mistaken for an empty one. */
        unsigned limit = v->max_inflight && v->max_inflight < VGPU_MAX_INFLIGHT ? v->max_inflight
                                                                                : VGPU_MAX_INFLIGHT;
        if (v->n_inflight < limit && ring_used(v) + pad + bytes <= VGPU_RING_SIZE - RING_ALIGN)
            break;
        if (vgpu_wait(v, v->inflight[0].seqno, VGPU_WAIT_DEFAULT_US, NULL) == VGPU_TIMEOUT) {
            vgpu_complain(v, "the GPU did not retire workload %" PRIu32 " in %u ms",
                          v->inflight[0].seqno, VGPU_WAIT_DEFAULT_US / 1000u);
            return 0;
        }
    }
    uint32_t seqno = v->next_seqno++;
    if (v->next_seqno == 0)
        v->next_seqno = 1;

    /* Commands never straddle the ring's end (i915 pads with MI_NOOP to wrap the same way). */
    if (v->tail + bytes > VGPU_RING_SIZE)
        while (v->tail != 0)
            ring_put(v, GEN9_MI_NOOP);
    for (uint32_t i = 0; i < n; i++)
        ring_put(v, cmds[i]);
    uint32_t bc[FLUSH_DW];
    struct vgpu_cmdbuf cb;
    vgpu_cmdbuf_init(&cb, bc, FLUSH_DW);
    vgpu_emit_flush_store(&cb, bc_slot_gm(v, seqno), seqno);
    for (uint32_t i = 0; i < cb.n; i++)
        ring_put(v, bc[i]);
    while (v->tail % RING_ALIGN)
        ring_put(v, GEN9_MI_NOOP);

    struct vgpu_request *rq = &v->inflight[v->n_inflight++];
    rq->seqno = seqno;
    rq->tail = v->tail;
    rq->rejected = vgpu_ext_read(v, EXT_FIELD(rejected));
    rq->resets = vgpu_ext_read(v, EXT_FIELD(resets));

    /* The new tail in the context image, then ELSP: element 1 (unused) high and low, element 0
     * high and low; the fourth write submits (i915 execlists_submit_ports, write_desc). */
    vgpu_ram_wr32(&ctx_state(v)[GEN9_CTX_RING_TAIL], v->tail);
    vgpu_barrier();
    uint64_t desc = gen9_ctx_desc((uint32_t)v->ctx.gm, v->ctx_id,
                                  GEN9_CTX_ADDR_LEGACY_32B << GEN9_CTX_ADDRESSING_MODE_SHIFT);
    uint32_t elsp = GEN9_RING_ELSP(GEN9_BCS_BASE);
    vgpu_write32(v, elsp, 0);
    vgpu_write32(v, elsp, 0);
    vgpu_write32(v, elsp, (uint32_t)(desc >> 32));
    vgpu_write32(v, elsp, (uint32_t)desc);
    v->stats.submitted++;
    return seqno;
}
