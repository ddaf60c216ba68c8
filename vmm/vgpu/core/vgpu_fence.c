/* The vGPU's fence registers (docs/vgpu-abi.md "Fences", docs/vgpu.md "Fences").
 *
 * A fence write is work in the hypervisor in proportion to the fence's size: every fenced page
 * gets a copy in the guest's share of the fence pool and an EPT remap (gtt/fence.c); a 32 MiB
 * fence is 8192 of each.  Done inside the guest's MMIO exit, that held the CPU for half a
 * second under Bochs, and a loop of them starved every other guest.  So an exit does
 * at most VGPU_FENCE_EXIT_PAGES pages of it; the rest is done VGPU_FENCE_POLL_PAGES at a time
 * between the guests' time slices (vgpu_dev_fence_work), and counted for the guest that asked.
 * The guest reads how many of its fence writes are not done yet in the PV page's
 * fence_pending; the register reads back what it wrote at once. */
#include "vmm/vgpu/core/vgpu_internal.h"

#include "drivers/igpu/gen9_regs.h"

bool vgpu_is_fence_reg(uint32_t off)
{
    return off >= GEN9_FENCE_REG_LO(0) && off < GEN9_FENCE_REG_LO(GEN9_FENCE_COUNT);
}

static void count_refusal(struct vgpu *v)
{
    v->st.fence_refused++;
    v->pv.tessera_balloon.fence_refused++;
}

static unsigned pending_count(const struct vgpu *v)
{
    const struct gtt_vgpu *gv = gtt_vgpu_get(v->dev->cfg.gtt, v->id);
    unsigned n = 0;
    for (unsigned i = 0; gv && i < gv->n_fences; i++)
        n += gv->fence[i].pending;
    return n;
}

uint32_t vgpu_fence_work(struct vgpu *v, uint32_t max_pages)
{
    struct vgpu_dev *d = v->dev;
    uint32_t done = 0;
    int p;
    while (done < max_pages && (p = gtt_fence_pending(d->cfg.gtt, v->id)) >= 0) {
        struct gtt_fence_result r;
        char err[200];
        int rc = gtt_fence_work(d->cfg.gtt, v->id, (unsigned)p, max_pages - done, &r, err,
                                sizeof err);
        if (r.program_old)
            igpu_fence_write(d->cfg.igpu, r.old_reg, 0);
        if (r.program)
            igpu_fence_write(d->cfg.igpu, r.phys_reg, r.phys_value);
        done += r.pages;
        if (rc != 0) {
            count_refusal(v);
            vgpu_logf(d, VGPU_LOG_WARN, "vgpu %u: fence %d value %#llx refused: %s", v->id, p,
                      (unsigned long long)v->fence[p], err);
        }
    }
    v->st.fence_work_pages += done;
    v->pv.tessera_balloon.fence_pending = pending_count(v);
    return done;
}

void vgpu_fence_write(struct vgpu *v, unsigned i, uint64_t value)
{
    struct vgpu_dev *d = v->dev;
    if (i >= v->pv.avail_rs.fence_num) {
        count_refusal(v);
        vgpu_logf(d, VGPU_LOG_WARN, "vgpu %u: fence %u refused: it has %u fences", v->id, i,
                  v->pv.avail_rs.fence_num);
        return;
    }
    if (value == v->fence[i])
        return;
    v->st.fence_writes++;
    v->fence[i] = value;
    char err[120];
    if (gtt_fence_request(d->cfg.gtt, v->id, i, value, err, sizeof err) != 0) {
        count_refusal(v);
        vgpu_logf(d, VGPU_LOG_WARN, "vgpu %u: fence %u refused: %s", v->id, i, err);
        return;
    }
    vgpu_fence_work(v, VGPU_FENCE_EXIT_PAGES);
}

bool vgpu_dev_fence_work(struct vgpu_dev *d, uint32_t max_pages)
{
    bool left = false;
    for (unsigned i = 0; i < VGPU_MAX; i++) {
        struct vgpu *v = d->v[i];
        if (!v || !v->pv.tessera_balloon.fence_pending)
            continue;
        vgpu_fence_work(v, max_pages);
        left |= v->pv.tessera_balloon.fence_pending != 0;
    }
    return left;
}
