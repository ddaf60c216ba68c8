/* What the hypervisor gives an i915 vGPU in the host tests (vgpu_env's page_alloc, page_free,
 * guest_phys, phys_ptr, protect, msi), over the vGPU fixture's "physical memory": shadow pages
 * come from the arena (where the model walks them), a freed one is filled with junk, every
 * write protection is remembered by guest and page, MSIs are counted. */
#ifndef TEST_VGPU_I915_ENV_H
#define TEST_VGPU_I915_ENV_H

#include "test_vgpu_fixture.h"

#include "vmm/vgpu/core/vgpu_internal.h"

#define HV_MAX_PROT 128u
static struct {
    unsigned pages_live, protects, unprotects, msis;
    struct {
        unsigned vm;
        uint64_t gpa;
    } prot[HV_MAX_PROT];
    unsigned n_prot;
} hv;

static int hv_page_alloc(void *ctx, uint64_t *hpa, void **va)
{
    struct fx *fx = ctx;
    *hpa = fx_take(fx, 4096);
    *va = fx_ptr(fx, *hpa);
    memset(*va, 0, 4096);
    hv.pages_live++;
    return 0;
}

static void hv_page_free(void *ctx, uint64_t hpa, void *va)
{
    memset(va, 0xA5, 4096); /* a walk through a freed page finds junk */
    hv.pages_live--;
}

static int hv_guest_phys(void *ctx, unsigned vm, uint64_t gpa, uint64_t *pa)
{
    struct fx *fx = ctx;
    if (vm >= FX_GUESTS || gpa >= FX_GUEST_RAM)
        return -1;
    *pa = fx->g[vm].ram_pa + gpa;
    return 0;
}

static void *hv_phys_ptr(void *ctx, uint64_t pa, uint64_t len)
{
    struct fx *fx = ctx;
    return pa >= FX_PA_BASE && pa + len <= FX_PA_BASE + FX_ARENA ? fx_ptr(fx, pa) : NULL;
}

static bool hv_protected(unsigned vm, uint64_t gpa)
{
    for (unsigned i = 0; i < hv.n_prot; i++)
        if (hv.prot[i].vm == vm && hv.prot[i].gpa == gpa)
            return true;
    return false;
}

static void hv_protect(void *ctx, unsigned vm, uint64_t gpa, bool on)
{
    if (on) {
        hv.protects++;
        if (!hv_protected(vm, gpa)) {
            assert_true(hv.n_prot < HV_MAX_PROT);
            hv.prot[hv.n_prot].vm = vm;
            hv.prot[hv.n_prot++].gpa = gpa;
        }
        return;
    }
    hv.unprotects++;
    for (unsigned i = 0; i < hv.n_prot; i++)
        if (hv.prot[i].vm == vm && hv.prot[i].gpa == gpa)
            hv.prot[i] = hv.prot[--hv.n_prot];
}

static bool hv_msi(void *ctx, unsigned vm)
{
    hv.msis++;
    return true;
}

/* The fixture's device gets them (before any vGPU becomes an i915 one). */
static inline void hv_install(struct fx *fx)
{
    struct vgpu_env *en = &fx->dev->cfg.env;
    memset(&hv, 0, sizeof hv);
    en->page_alloc = hv_page_alloc;
    en->page_free = hv_page_free;
    en->guest_phys = hv_guest_phys;
    en->phys_ptr = hv_phys_ptr;
    en->protect = hv_protect;
    en->msi = hv_msi;
}

#endif
