#include "vmm/vgpu/host/gpu.h"

#include "arch/x86/page_alloc.h"
#include "arch/x86/pci.h"
#include "drivers/igpu/gen9_regs.h"
#include "vmm/log.h"
#include "vmm/vgpu/host/gpu_lock.h"
#include "vmm/platform.h"
#include "vmm/vgpu/host/vgpu_host.h"
#include "vmm/vm.h"

#include <stdio.h>
#include <string.h>


struct gpu_state gpu;

/* The model reaches "system memory" as the GPU would: host-physical, identity mapped here. */
static int mem_read(void *ctx, uint64_t pa, void *buf, size_t len)
{
    if (pa + len > platform.mapped_top)
        return -1;
    memcpy(buf, (const void *)(uintptr_t)pa, len);
    return 0;
}

static int mem_write(void *ctx, uint64_t pa, const void *buf, size_t len)
{
    if (pa + len > platform.mapped_top)
        return -1;
    memcpy((void *)(uintptr_t)pa, buf, len);
    return 0;
}

/* gtt/ writes physical GGTT entries through the backend. */
static void ggtt_write(void *ctx, uint32_t index, uint64_t pte)
{
    igpu_ggtt_write(gpu.igpu, index, pte);
}

static void ggtt_write_run(void *ctx, uint32_t index, uint32_t n, const uint64_t *ptes)
{
    igpu_ggtt_write_run(gpu.igpu, index, n, ptes);
}

/* gtt/ invalidates after every update it makes (i915 gen8_ggtt_invalidate()). */
static void ggtt_invalidate(void *ctx)
{
    igpu_ggtt_flush(gpu.igpu);
}

/* A guest GGTT entry may only point at the guest's own RAM (docs/gtt.md). */
static int translate(void *ctx, unsigned vgpu, uint64_t gpa, uint64_t *hpa)
{
    const struct vm *vm = vm_get(vgpu);
    if (!vm || !vm->ram_hpa || gpa >= vm->ram_bytes)
        return -1;
    *hpa = vm->ram_hpa + gpa;
    return 0;
}

/* Ladder mapping: the guest's aperture pages follow its GGTT entries (vgpu_host.c maps them in
 * its EPT). */
static void ept_update(void *ctx, unsigned vgpu, const struct gtt_ept_update *u)
{
    vgpu_host_ept_update(vgpu, u);
}

/* One INVEPT for all the updates of a gtt/ call (a fence step remaps up to 64 pages). */
static void ept_flush(void *ctx, unsigned vgpu)
{
    vgpu_host_ept_flush(vgpu);
}

/* A vGPU's own scratch page: its unmapped GGTT entries point here, so what its GPU work writes
 * to a page it never mapped is seen by nobody else (gtt/gtt.h). */
static int vgpu_scratch(void *ctx, unsigned vgpu, uint64_t *pte)
{
    if (vgpu >= TESSERA_MAX_GUESTS)
        return -1;
    if (!gpu.vgpu_scratch[vgpu]) {
        gpu.vgpu_scratch[vgpu] = page_alloc(&platform.pages, 1, 1);
        if (!gpu.vgpu_scratch[vgpu])
            return -1;
        memset((void *)(uintptr_t)gpu.vgpu_scratch[vgpu], 0, PAGE_SIZE);
    }
    *pte = gen9_ggtt_pte_encode(gpu.vgpu_scratch[vgpu]);
    return 0;
}

static void describe_pci(void)
{
    const struct pci_device *d = pci_find(0, GEN9_PCI_DEV, 0);
    if (!d)
        snprintf(gpu.found, sizeof gpu.found, "nothing at PCI 00:02.0");
    else
        snprintf(gpu.found, sizeof gpu.found, "PCI 00:02.0 is %04x:%04x (%s)", d->vendor, d->device,
                 pci_class_name(d->class_code, d->subclass));
}

static bool model_init(uint64_t aperture_bytes)
{
    struct igpu_model_config mc;
    igpu_model_config_defaults(&mc);
    uint64_t gsm_bytes = (uint64_t)mc.ggtt_entries * GEN9_GGTT_PTE_SIZE;
    gpu.gsm_phys = page_alloc(&platform.pages, gsm_bytes / PAGE_SIZE, 1);
    gpu.scratch_page = page_alloc(&platform.pages, 1, 1);
    if (!gpu.gsm_phys || !gpu.scratch_page) {
        snprintf(gpu.error, sizeof gpu.error, "no memory for the model's GGTT (%llu KiB)",
                 (unsigned long long)(gsm_bytes >> 10));
        return false;
    }
    memset((void *)(uintptr_t)gpu.scratch_page, 0, PAGE_SIZE);
    mc.mem = (struct igpu_model_mem){ mem_read, mem_write, NULL };
    mc.gsm_base = gpu.gsm_phys;
    mc.aperture_size = aperture_bytes;
    /* The render loop preempts a vGPU whose turn is used up inside a long workload: the model
     * lets it leave between commands in batches and between the steps of a long blit, where
     * Gen9's blitter has only MI_ARB_CHECK (docs/igpu-model.md "Preemption"). */
    mc.preempt = IGPU_MODEL_PREEMPT_STEP;
    int rc = igpu_model_create(&mc, &gpu.model);
    if (rc != IGPU_OK) {
        snprintf(gpu.error, sizeof gpu.error, "the software model did not start: %s",
                 igpu_strerror(rc));
        return false;
    }
    /* Other CPUs' exits reach the model while the render loop's CPU runs it (gpu_lock.h). */
    gpu.igpu = gpu_locked_igpu(igpu_model_igpu(gpu.model));
    return true;
}

bool gpu_init(const struct cfg *cfg)
{
    describe_pci();
    const struct pci_device *d = pci_find(0, GEN9_PCI_DEV, 0);
    if (d && igpu_pci_id_supported(d->vendor, d->device))
        log_warn("iGPU: %s is a supported Gen9 GPU, but this build drives graphics memory with the "
                 "software model only (the hardware backend is not wired into the render loop yet)",
                 gpu.found);
    else
        log_info("iGPU: no supported Intel Gen9 GPU (%s): using the software Gen9 model",
                 gpu.found);

    struct gtt_layout_params p;
    struct gtt_guest_request req[TESSERA_MAX_GUESTS];
    cfg_gtt_params(cfg, &p, req);
    char err[200];
    if (gtt_layout_compute(&p, &gpu.layout, err, sizeof err) != 0) {
        snprintf(gpu.error, sizeof gpu.error, "graphics memory layout: %s", err);
        log_error("%s", gpu.error);
        return false;
    }
    if (!model_init(p.aperture_bytes)) {
        log_error("iGPU: %s", gpu.error);
        return false;
    }
    uint64_t fence_shares[TESSERA_MAX_GUESTS];
    cfg_fence_shares(cfg, fence_shares);
    struct gtt_config gc = {
        .layout = &gpu.layout,
        .ops = { .ctx = NULL,
                 .ggtt_write = ggtt_write,
                 .translate = translate,
                 .ept_update = ept_update,
                 .vgpu_scratch = vgpu_scratch,
                 .ggtt_invalidate = ggtt_invalidate,
                 .ept_flush = ept_flush,
                 .ggtt_write_run = ggtt_write_run },
        .scratch_pte = gen9_ggtt_pte_encode(gpu.scratch_page),
        .copy = GTT_COPY_ENTRY,
        .slots = GTT_SLOTS_CONTIGUOUS,
        .fence_pool_shares = fence_shares,
    };
    int rc = gtt_init(&gpu.gtt, &gc);
    for (unsigned i = 0; rc == 0 && i < cfg->n_guests; i++) {
        rc = gtt_vgpu_create_from_layout(&gpu.gtt, i);
        /* The configuration's balloon bounds (the layout's are the guest's own request). */
        struct gtt_vgpu *v = gtt_vgpu_get(&gpu.gtt, i);
        if (rc == 0 && cfg->balloon.enabled) {
            if (cfg->balloon.min_slots && cfg->balloon.min_slots <= v->n_slots)
                v->min_slots = cfg->balloon.min_slots;
            if (cfg->balloon.max_slots > v->n_slots)
                v->max_slots = cfg->balloon.max_slots;
        }
        /* i915 reads avail_rs once, at load (intel_vgt_balloon()): its slots stay its own. */
        if (rc == 0 && cfg->guest[i].vgpu == CFG_VGPU_I915)
            v->min_slots = v->max_slots = v->n_slots;
    }
    if (rc != 0) {
        snprintf(gpu.error, sizeof gpu.error, "GGTT partitioning failed: %s", gtt_strerror(rc));
        log_error("%s", gpu.error);
        return false;
    }
    igpu_ggtt_flush(gpu.igpu);
    struct gtt_summary s;
    gtt_summarize(&gpu.gtt, &s);
    log_info(
        "gtt: %llu MiB GGTT, aperture %llu MiB; host area %llu MiB, fence pool %llu MiB; %u vGPUs on %u "
        "slots of %llu MiB (%u shared)",
        (unsigned long long)(gpu.layout.ggtt_bytes >> 20),
        (unsigned long long)(gpu.layout.aperture_bytes >> 20),
        (unsigned long long)(gpu.layout.host.size >> 20),
        (unsigned long long)(gpu.layout.fence_pool.size >> 20), s.n_vgpus, s.n_slots,
        (unsigned long long)(gpu.layout.slot_bytes >> 20), s.slots_shared);
    gpu.ready = true;
    return true;
}
