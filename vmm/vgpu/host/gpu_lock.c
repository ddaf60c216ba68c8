/* The model lock and the backend behind it (gpu_lock.h). */
#include "vmm/vgpu/host/gpu_lock.h"

#include "arch/x86/spinlock.h"

static struct spinlock model_lock;
static struct igpu locked;

void gpu_model_lock(void)
{
    spin_lock(&model_lock);
}

void gpu_model_unlock(void)
{
    spin_unlock(&model_lock);
}

/* Each operation forwards to the inner backend (`be`) with the lock held. */
#define LOCKED(call) \
    do { \
        gpu_model_lock(); \
        int rc_ = (call); \
        gpu_model_unlock(); \
        return rc_; \
    } while (0)

static int l_reg_read(void *be, uint32_t reg, uint32_t *val)
{
    LOCKED(igpu_reg_read(be, reg, val));
}
static int l_reg_write(void *be, uint32_t reg, uint32_t val)
{
    LOCKED(igpu_reg_write(be, reg, val));
}
static int l_ggtt_write(void *be, uint32_t index, uint64_t pte)
{
    LOCKED(igpu_ggtt_write(be, index, pte));
}
static int l_ggtt_write_run(void *be, uint32_t index, uint32_t n, const uint64_t *ptes)
{
    LOCKED(igpu_ggtt_write_run(be, index, n, ptes));
}
static int l_ggtt_read(void *be, uint32_t index, uint64_t *pte)
{
    LOCKED(igpu_ggtt_read(be, index, pte));
}
static int l_ggtt_flush(void *be)
{
    LOCKED(igpu_ggtt_flush(be));
}
static int l_fence_write(void *be, uint32_t index, uint64_t value)
{
    LOCKED(igpu_fence_write(be, index, value));
}
static int l_engine_init(void *be, enum igpu_engine e, uint32_t hws_gaddr)
{
    LOCKED(igpu_engine_init(be, e, hws_gaddr));
}
static int l_elsp_submit(void *be, enum igpu_engine e, uint64_t d0, uint64_t d1)
{
    LOCKED(igpu_elsp_submit(be, e, d0, d1));
}
static int l_csb_read(void *be, enum igpu_engine e, struct igpu_csb_event *ev, unsigned max)
{
    LOCKED(igpu_csb_read(be, e, ev, max));
}
static int l_irq_ack(void *be, struct igpu_irq_status *st)
{
    LOCKED(igpu_irq_ack(be, st));
}
static int l_engine_reset(void *be, enum igpu_engine e)
{
    LOCKED(igpu_engine_reset(be, e));
}
static int l_timestamp(void *be, enum igpu_engine e, uint64_t *ticks)
{
    LOCKED(igpu_timestamp(be, e, ticks));
}

static struct igpu_ops locked_ops = {
    .reg_read = l_reg_read,
    .reg_write = l_reg_write,
    .ggtt_write = l_ggtt_write,
    .ggtt_write_run = l_ggtt_write_run,
    .ggtt_read = l_ggtt_read,
    .ggtt_flush = l_ggtt_flush,
    .fence_write = l_fence_write,
    .engine_init = l_engine_init,
    .elsp_submit = l_elsp_submit,
    .csb_read = l_csb_read,
    .irq_ack = l_irq_ack,
    .engine_reset = l_engine_reset,
    .timestamp = l_timestamp,
};

struct igpu *gpu_locked_igpu(struct igpu *inner)
{
    locked_ops.name = inner->ops->name;
    locked = (struct igpu){ .ops = &locked_ops, .be = inner, .info = inner->info };
    return &locked;
}
