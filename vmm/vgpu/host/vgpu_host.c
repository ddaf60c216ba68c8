#include "vmm/vgpu/host/vgpu_host.h"

#include "arch/x86/page_alloc.h"
#include "arch/x86/timer.h"
#include "arch/x86/vmx.h"
#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_gtt.h"
#include "vmm/board/board.h"
#include "vmm/config_boot.h"
#include "vmm/hv_lock.h"
#include "boot/linux/linux_layout.h"
#include "vmm/vgpu/host/gpu.h"
#include "vmm/vgpu/host/gpu_lock.h"
#include "vmm/vgpu/i915/display/vdisp_opregion.h"
#include "vmm/vgpu/i915/i915.h"
#include "vmm/vgpu/kiosk/kiosk.h"
#include "vmm/io/ept_window.h"
#include "vmm/io/io_bus.h"
#include "vmm/log.h"
#include "vmm/platform.h"
#include "vmm/vcpu/vcpu_run.h"
#include "vmm/vm.h"
#include "vmm/display/wall.h"

#include <stdio.h>
#include <string.h>

#define HOST_PER_VGPU   (1ull << 20) /* shadow context, ring and batch copies of one vGPU */
#define DISPATCH_MAX    8u           /* workloads per dispatch: fits the shadow ring */
#define CALIB_W         256u
#define CALIB_H         256u
#define PLACE_PERIOD_NS 500000000ull /* re-placement planning (vgpu_place_period) */
/* GPU time per piece of the model's execution: a render step's budget, and what the model runs
 * beside the steps at a time. */
#define RENDER_BUDGET_NS 500000u

struct vgpu_host vgpu_host;

/* ---- what vmm/vgpu needs from the machine ------------------------------------------------- */

static void *env_guest_ram(void *ctx, unsigned id, uint64_t gpa, uint64_t len)
{
    const struct vm *vm = vm_get(id);
    return vm ? vm_gpa_ptr(vm, gpa, len) : NULL;
}

/* The render clock is the GPU's own: on the model, the blitter's clock (which advances by the
 * modelled cost of what it executes, and by wall time while it idles), so the scheduler's
 * fairness and the watchdog count GPU time however slowly an emulator runs the model. */
static uint64_t env_now(void *ctx)
{
    if (!gpu.model)
        return timer_now_ns();
    struct igpu_model_stats st;
    gpu_model_lock();
    igpu_model_stats(gpu.model, IGPU_BCS, &st);
    gpu_model_unlock();
    return st.clock_ns;
}

/* With the render loop alone on its core, the model does not execute inside the render steps,
 * which hold the hypervisor lock and would keep every other CPU's exits waiting for it, but
 * between them without that lock (run_beside), as a GPU runs beside the CPUs; a step then takes
 * in what it did, as it would on hardware.  Where vCPUs share the render loop's CPU it keeps
 * executing inside the steps: there its time is their CPU share's, and the lock it holds meanwhile
 * is what holds an AP's exits to their weight's share of it (lock_share in vcpu_run.c; letting
 * go of it there took a victim beside a fence-rewriting neighbour on another core from 97 % to
 * 91 % of its frame rate). */
static uint64_t ran_beside; /* GPU time executed beside the steps, not yet taken (model lock) */

/* The GPU time executed since the last call: what ran beside the steps, or, if nothing did (one
 * CPU, a drain in an exit, the first step after an idle GPU), up to `budget` run here. */
static uint64_t env_gpu_run(void *ctx, uint64_t budget)
{
    if (!gpu.model)
        return 0;
    gpu_model_lock();
    uint64_t used = ran_beside;
    ran_beside = 0;
    if (!used) {
        uint64_t t0 = timer_now_ns();
        used = igpu_model_run(gpu.model, IGPU_BCS, budget);
        vgpu_host.gpu_wall_ns += timer_now_ns() - t0;
    }
    gpu_model_unlock();
    return used;
}

/* With the hypervisor lock held: lets it go while the model executes a piece of the engine's
 * work, charged to the vGPU whose work it is, and takes it again. */
static void run_beside(void)
{
    unsigned owner = vgpu_render_owner(vgpu_host.dev);
    hv_unlock();
    gpu_model_lock();
    uint64_t t0 = timer_now_ns();
    ran_beside += igpu_model_run(gpu.model, IGPU_BCS, RENDER_BUDGET_NS);
    uint64_t ns = timer_now_ns() - t0;
    vgpu_host.gpu_wall_ns += ns;
    gpu_model_unlock();
    hv_lock();
    vgpu_render_charge_cpu(vgpu_host.dev, owner, ns);
}

/* Another CPU's exit waits for the hypervisor lock the render step holds. */
static bool env_cpu_wanted(void *ctx)
{
    return hv_lock_contended();
}

static uint64_t env_cpu_ns(void *ctx)
{
    return timer_now_ns();
}

static const char *env_gpu_fault(void *ctx)
{
    if (!gpu.model)
        return NULL;
    gpu_model_lock();
    const struct igpu_model_fault *f = igpu_model_fault(gpu.model, IGPU_BCS);
    gpu_model_unlock();
    return f ? f->detail : NULL;
}

static void env_log(void *ctx, enum vgpu_log_level l, const char *msg)
{
    switch (l) {
    case VGPU_LOG_DEBUG:
        log_debug("%s", msg);
        break;
    case VGPU_LOG_INFO:
        log_info("%s", msg);
        break;
    case VGPU_LOG_WARN:
        log_warn("%s", msg);
        break;
    default:
        log_error("%s", msg);
        break;
    }
}

/* ---- for i915 vGPUs: host pages, EPT write protection, MSI ------------------------------- */

static int env_page_alloc(void *ctx, uint64_t *hpa, void **va)
{
    uint64_t pa = page_alloc(&platform.pages, 1, 1);
    if (!pa)
        return -1;
    memset((void *)(uintptr_t)pa, 0, PAGE_SIZE);
    *hpa = pa;
    *va = (void *)(uintptr_t)pa; /* identity-mapped */
    return 0;
}

static void env_page_free(void *ctx, uint64_t hpa, void *va)
{
    page_free(&platform.pages, hpa, 1);
}


static int env_guest_phys(void *ctx, unsigned id, uint64_t gpa, uint64_t *pa)
{
    const struct vm *vm = vm_get(id);
    if (!vm || !vm->ram_hpa || gpa >= vm->ram_bytes)
        return -1;
    *pa = vm->ram_hpa + gpa;
    return 0;
}

static void *env_phys_ptr(void *ctx, uint64_t pa, uint64_t len)
{
    return (void *)(uintptr_t)pa; /* all RAM is identity-mapped */
}

static void env_protect(void *ctx, unsigned id, uint64_t gpa, bool on)
{
    struct vm *vm = vm_get(id);
    if (!vm || !vm->ept_ready || gpa >= vm->ram_bytes)
        return;
    int rc = ept_protect(&vm->ept, gpa & ~(uint64_t)(PAGE_SIZE - 1), PAGE_SIZE,
                         on ? EPT_PERM_R | EPT_PERM_X : EPT_PERM_RWX);
    if (rc != 0)
        log_warn("vgpu %u: page %#llx not %s: %s", id, (unsigned long long)gpa,
                 on ? "write-protected" : "given back", ept_strerror(rc));
    vm_ept_flush(vm);
}

/* The MSI the guest programmed in the vGPU's capability (vmm/vpci/vgpu_pci.c), on the PCI bus
 * of its board. */
static bool env_msi(void *ctx, unsigned id)
{
    struct vm *vm = vm_get(id);
    struct vpci *pci = vm ? board_pci(vm) : NULL;
    uint64_t addr;
    uint32_t data;
    return pci && vgpu_pci_msi(pci, &addr, &data) && vm_deliver_msi(vm, addr, data);
}

/* The guest wrote a page of its RAM the vGPU write-protected (the I/O bus's RAM-write hook):
 * true if the vGPU took it (the guest re-executes the write). */
static bool table_write(void *ctx, uint64_t gpa)
{
    unsigned id = (unsigned)(uintptr_t)ctx;
    return vgpu_host.ready && vgpu_table_write(vgpu_get(vgpu_host.dev, id), gpa);
}

/* ---- BAR0 and BAR2 traps ------------------------------------------------------------------ */

static bool bar0_read(void *ctx, uint64_t off, unsigned size, uint64_t *val)
{
    return vgpu_mmio_read(ctx, off, size, val);
}

static uint64_t bar0_write_cost(void *ctx, uint64_t off, unsigned size, uint64_t val)
{
    return vgpu_mmio_write_cost(ctx, off, size, val);
}

/* A write may have given the GPU work (a submission, a doorbell): the render loop's CPU looks. */
static bool bar0_write(void *ctx, uint64_t off, unsigned size, uint64_t val)
{
    bool ok = vgpu_mmio_write(ctx, off, size, val);
    vcpu_render_kick();
    return ok;
}

/* The physical aperture as the vGPU reaches it for fenced pages: the model's de-tiling
 * aperture (on the GPU itself EPT maps fenced pages to the real BAR2, so nothing exits). */
static int env_aperture_rw(void *ctx, uint64_t off, void *buf, size_t len, bool write)
{
    if (!gpu.model)
        return -1;
    gpu_model_lock();
    int rc = write ? igpu_model_aperture_write(gpu.model, off, buf, len)
                   : igpu_model_aperture_read(gpu.model, off, buf, len);
    gpu_model_unlock();
    return rc;
}

/* An aperture access that exited (vmm/vgpu/core/vgpu_aperture.c says which do and what they see). */
static bool bar2_read(void *ctx, uint64_t off, unsigned size, uint64_t *val)
{
    *val = 0;
    return vgpu_aperture_read(vgpu_get(vgpu_host.dev, (unsigned)(uintptr_t)ctx), off, size, val);
}

static bool bar2_write(void *ctx, uint64_t off, unsigned size, uint64_t val)
{
    return vgpu_aperture_write(vgpu_get(vgpu_host.dev, (unsigned)(uintptr_t)ctx), off, size, val);
}

/* The aperture BAR's region on the guest's I/O bus: where the ladder mapping goes. */
static struct io_mmio *aperture_of(const struct vm *vm)
{
    return io_bus_find_bar(&vm->io, VGPU_PCI_DEV, VGPU_PCI_FN, VGPU_BAR_APERTURE);
}

void vgpu_host_ept_update(unsigned id, const struct gtt_ept_update *u)
{
    struct vm *vm = vm_get(id);
    const struct io_mmio *r = vm ? aperture_of(vm) : NULL;
    /* A window that decodes nowhere has nothing mapped: its pages are mapped when it is placed. */
    if (!vm || !vm->ept_ready || !r || r->base == IO_UNPLACED)
        return;
    uint64_t gpa = r->base + u->aper_off;
    ept_unmap(&vm->ept, gpa, EPT_PAGE_4K);
    if (u->kind == GTT_EPT_MAP_RAM &&
        ept_map(&vm->ept, gpa, u->target, EPT_PAGE_4K, EPT_PERM_R | EPT_PERM_W, EPT_MT_WB) != 0)
        log_warn("vgpu %u: aperture page %#llx not mapped (no memory for EPT tables): it traps", id,
                 (unsigned long long)gpa);
    /* gtt/ flushes once after all the updates of a call (vgpu_host_ept_flush). */
}

void vgpu_host_ept_flush(unsigned id)
{
    struct vm *vm = vm_get(id);
    if (vm)
        vm_ept_flush(vm);
}

/* The guest's aperture as EPT maps it: its low window's pages whose GGTT entries point at RAM
 * (the ladder mapping), at the window's offset inside the BAR. */
static bool ladder_page(void *ctx, uint64_t off, uint64_t *hpa)
{
    unsigned id = (unsigned)(uintptr_t)ctx;
    const struct gtt_vgpu *gv = gtt_vgpu_get(&gpu.gtt, id);
    return gv && gtt_ladder_lookup(&gpu.gtt, id, gv->low.start + off, hpa) == 0;
}

static struct ept_window aperture_window(unsigned id, const struct io_mmio *r)
{
    const struct gtt_vgpu *gv = gtt_vgpu_get(&gpu.gtt, id);
    return (struct ept_window){ r->size,
                                gv ? gv->low.start : 0,
                                gv ? gv->low.size : 0,
                                EPT_PERM_R | EPT_PERM_W,
                                EPT_MT_WB,
                                ladder_page,
                                (void *)(uintptr_t)id };
}

/* The guest moved the aperture BAR (or turned its decoding off or on): the ladder mappings
 * leave the old place, their EPT tables with them, and are made again at the new one. */
static void aperture_moved(void *ctx, uint64_t old_base, uint64_t new_base)
{
    unsigned id = (unsigned)(uintptr_t)ctx;
    struct vm *vm = vm_get(id);
    const struct io_mmio *r = vm ? aperture_of(vm) : NULL;
    if (!r || !vm->ept_ready)
        return;
    struct ept_window w = aperture_window(id, r);
    int rc = ept_window_move(&vm->ept, &w, old_base, new_base);
    if (rc != 0)
        log_warn("vgpu %u: aperture moved to %#llx: %s (pages not mapped trap)", id,
                 (unsigned long long)new_base, ept_strerror(rc));
    vm_ept_flush(vm);
}

/* ---- the kiosk wall's sources ------------------------------------------------------------- */

struct fb_read_ctx {
    const struct vgpu *v;
    struct vgpu_plane p;
};
static struct fb_read_ctx fb_ctx[VGPU_MAX];

static bool fb_read(void *ctx, uint64_t off, void *buf, size_t len)
{
    const struct fb_read_ctx *c = ctx;
    return vgpu_plane_read(c->v, &c->p, off, buf, len);
}

static bool wall_source(unsigned id, struct wall_source *out)
{
    const struct vgpu *v = vgpu_get(vgpu_host.dev, id);
    const struct vm *vm = vm_get(id);
    struct vgpu_plane p;
    if (!v || !vm || vm->state != VM_RUNNING)
        return false;
    if (!vgpu_plane_get(v, &p)) {
        out->refused = p.refused;
        out->owned = p.owned;
        return false;
    }
    fb_ctx[id] = (struct fb_read_ctx){ v, p };
    uint32_t w = p.pic_width ? p.pic_width : p.width, h = p.pic_height ? p.pic_height : p.height;
    *out = (struct wall_source){ .enabled = true,
                                 .owned = p.owned,
                                 .width = w,
                                 .height = h,
                                 .stride_bytes = w * 4u,
                                 .read = fb_read,
                                 .ctx = &fb_ctx[id] };
    return true;
}

/* ---- an i915 guest's display: its monitor and OpRegion ----------------------------------- */

static bool configure_monitor(struct vgpu *v, const struct cfg_guest *g)
{
    const char *why;
    struct vgpu_monitor m = { true, g->display_width_px, g->display_height_px, g->display_hz };
    if (vgpu_set_monitor(v, &m, true, &why))
        return true;
    log_error("vgpu: %s: no display: %s", g->name, why);
    return false;
}

/* The OpRegion with its VBT (vdisp_opregion.h) at the address PCI ASLS names, in the reserved
 * BIOS area of the guest's e820 (boot/linux/linux_layout.h), written at every start once the
 * loader has cleared the guest's RAM (the vGPU's `loaded` hook). */
static bool write_opregion(struct vm *vm, void *ctx)
{
    void *p = vm_gpa_ptr(vm, LINUX_OPREGION_GPA, VDISP_OPREGION_BYTES);
    if (p)
        vdisp_opregion_build(p);
    else
        log_warn("vgpu %u: no guest memory at %#llx for the OpRegion: i915 will find no VBT",
                 vm->id, (unsigned long long)LINUX_OPREGION_GPA);
    return true;
}

/* ---- bring-up ----------------------------------------------------------------------------- */

/* Host graphics memory: RAM pages behind the first part of the layout's host area. */
static bool map_host_area(unsigned n_guests)
{
    uint64_t bytes = (uint64_t)n_guests * HOST_PER_VGPU + 2 * GEN9_GTT_PAGE_SIZE;
    if (bytes > gpu.layout.host.size)
        bytes = gpu.layout.host.size;
    uint64_t pa = page_alloc(&platform.pages, bytes / PAGE_SIZE, 1);
    if (!pa)
        return false;
    memset((void *)(uintptr_t)pa, 0, bytes);
    for (uint64_t off = 0; off < bytes; off += GEN9_GTT_PAGE_SIZE)
        igpu_ggtt_write(gpu.igpu, (uint32_t)((gpu.layout.host.start + off) >> GEN9_GTT_PAGE_SHIFT),
                        gen9_ggtt_pte_encode(pa + off));
    igpu_ggtt_flush(gpu.igpu);
    vgpu_host.host_phys = pa;
    vgpu_host.host_bytes = bytes;
    return true;
}

/* The software model's speed is the CPU's: scale its costs so that modelled GPU time is never
 * shorter than the time this machine takes to execute it.  Otherwise, under an emulator, the
 * watchdog's 200 ms of GPU time would be minutes of wall time and a turn of the scheduler
 * seconds.  Measured with a fill in the host area's last page-aligned 256 KiB. */
static void calibrate_model(void)
{
    struct igpu_model *m = gpu.model;
    uint64_t lrca = gpu.layout.host.start + vgpu_host.host_bytes - 2 * GEN9_GTT_PAGE_SIZE;
    uint64_t ring = gpu.layout.host.start;
    uint64_t surf = gpu.layout.host.start + GEN9_GTT_PAGE_SIZE;
    uint64_t hws = gpu.layout.host.start + vgpu_host.host_bytes - 3 * GEN9_GTT_PAGE_SIZE;
    vgpu_host.cost_scale = 1000;
    if (vgpu_host.host_bytes < CALIB_W * CALIB_H * 4 + 4 * GEN9_GTT_PAGE_SIZE ||
        igpu_engine_init(gpu.igpu, IGPU_BCS, (uint32_t)hws) != IGPU_OK ||
        igpu_model_ctx_init(m, IGPU_BCS, (uint32_t)lrca, (uint32_t)ring, GEN9_GTT_PAGE_SIZE) !=
            IGPU_OK)
        return;
    uint64_t wall = 0, modelled = 0;
    for (unsigned rep = 0; rep < 4; rep++) {
        uint32_t c[8] = { GEN9_XY_COLOR_BLT,
                          GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) | CALIB_W * 4,
                          0,
                          GEN9_BLT_COORD(CALIB_W, CALIB_H),
                          (uint32_t)surf,
                          0,
                          rep,
                          GEN9_MI_NOOP };
        if (igpu_model_submit_ring(m, IGPU_BCS, (uint32_t)lrca, 1, c, 8) != IGPU_OK)
            return;
        uint64_t t0 = timer_now_ns();
        modelled += igpu_model_run_until_idle(m, IGPU_BCS, 1000000000ull);
        wall += timer_now_ns() - t0;
        struct igpu_csb_event ev[8];
        igpu_csb_read(gpu.igpu, IGPU_BCS, ev, 8);
    }
    igpu_engine_reset(gpu.igpu, IGPU_BCS);
    if (!modelled || wall <= modelled)
        return;
    uint64_t k = wall * 1000 / modelled;
    struct igpu_model_cost c;
    igpu_model_cost_defaults(&c);
    c.cmd_ns = (uint32_t)(c.cmd_ns * k / 1000);
    c.blit_ns = (uint32_t)(c.blit_ns * k / 1000);
    c.pixel_ps = (uint32_t)(c.pixel_ps * k / 1000);
    c.write_ns = (uint32_t)(c.write_ns * k / 1000);
    c.batch_ns = (uint32_t)(c.batch_ns * k / 1000);
    c.ctx_switch_ns = (uint32_t)(c.ctx_switch_ns * k / 1000);
    if (igpu_model_set_cost(m, &c) == IGPU_OK)
        vgpu_host.cost_scale = (uint32_t)k;
}

/* The CPU the model spent rendering guest id's work, counted in its CPU share. */
static uint64_t render_cpu_of(unsigned id)
{
    return vgpu_render_cpu_ns(vgpu_host.dev, id);
}

/* ---- the vGPU on each guest's board ------------------------------------------------------ */

/* A guest (re)started: its vGPU goes back to power-on state.  On its first start it is there
 * already (created with the guest, never used). */
static bool guest_started(struct vm *vm, void *ctx)
{
    unsigned id = (unsigned)(uintptr_t)ctx;
    struct vgpu *v = vgpu_get(vgpu_host.dev, id);
    if (!v || vm->boot_count <= 1)
        return true;
    vgpu_guest_reset(v);
    wall_tile_restarted(id);
    /* Its work is off the GPU now: a restarted guest finds its scratch page as new (what its
     * previous run wrote to unmapped pages is gone). */
    if (id < TESSERA_MAX_GUESTS && gpu.vgpu_scratch[id])
        memset((void *)(uintptr_t)gpu.vgpu_scratch[id], 0, GEN9_GTT_PAGE_SIZE);
    return true;
}

static void vgpu_stats(const struct vm *vm, void *ctx, char *buf, size_t len)
{
    unsigned id = (unsigned)(uintptr_t)ctx;
    const struct io_mmio *r = aperture_of(vm);
    if (!r || r->base == IO_UNPLACED || !vm->ept_ready) {
        snprintf(buf, len, "aperture decodes nowhere");
        return;
    }
    struct ept_window w = aperture_window(id, r);
    snprintf(buf, len, "aperture at %#llx: %llu pages mapped through EPT",
             (unsigned long long)r->base,
             (unsigned long long)ept_window_mapped(&vm->ept, &w, r->base));
}

/* Says why a default place was refused (a guest whose RAM reaches it). */
static void placed(const struct vm *vm, const char *name, int rc)
{
    if (rc == IO_E_WINDOW || rc == IO_E_OVERLAP)
        log_warn(
            "guest %u (%s): %s: its default place is refused (%s): it decodes nowhere until the guest "
            "moves its BAR",
            vm->id, vm->cfg->name, name, io_strerror(rc));
}

/* BAR0 (registers, GGTT) and BAR2 (the aperture) on the guest's I/O bus, following the vGPU
 * function's BARs; the RAM-write hook for the pages the vGPU write-protects; and the vGPU as a
 * device whose start hook resets it. */
static bool attach(struct vm *vm, struct vgpu *v)
{
    void *id = (void *)(uintptr_t)vm->id;
    const struct io_mmio r0 = { VGPU_BAR0_DEFAULT,
                                VGPU_BAR0_SIZE,
                                bar0_read,
                                bar0_write,
                                NULL,
                                v,
                                "vgpu-bar0",
                                { true, VGPU_PCI_DEV, VGPU_PCI_FN, VGPU_BAR_MMIO },
                                bar0_write_cost };
    const struct io_mmio r2 = { VGPU_BAR2_DEFAULT,
                                gpu.layout.aperture_bytes,
                                bar2_read,
                                bar2_write,
                                aperture_moved,
                                id,
                                "vgpu-bar2",
                                { true, VGPU_PCI_DEV, VGPU_PCI_FN, VGPU_BAR_APERTURE },
                                NULL };
    int rc0 = io_bus_add_mmio(&vm->io, &r0, NULL), rc2 = io_bus_add_mmio(&vm->io, &r2, NULL);
    if (rc0 == IO_E_ARG || rc0 == IO_E_FULL || rc2 == IO_E_ARG || rc2 == IO_E_FULL)
        return false;
    placed(vm, r0.name, rc0);
    placed(vm, r2.name, rc2);
    io_bus_set_ram_write(&vm->io, table_write, id);
    bool display = vm->cfg->vgpu_display == CFG_DISPLAY_DP;
    return vm_add_device(vm, &(struct vm_device){ .name = "vgpu",
                                                  .ctx = id,
                                                  .start = guest_started,
                                                  .loaded = display ? write_opregion : NULL,
                                                  .stats = vgpu_stats });
}

static bool fail(const char *why)
{
    snprintf(vgpu_host.error, sizeof vgpu_host.error, "%s", why);
    log_error("vgpu: %s: guests get no GPU", why);
    return false;
}

bool vgpu_host_init(const struct cfg *cfg)
{
    if (!gpu.ready)
        return fail(gpu.error[0] ? gpu.error : "the GPU side is not up");
    if (vm_count() == 0)
        return fail("no guests");
    if (!map_host_area(cfg->n_guests))
        return fail("no memory for the host graphics area");
    if (gpu.model)
        calibrate_model();

    struct sched_config sc;
    sched_config_default(&sc);
    enum sched_policy pol;
    if (sched_policy_from_name(cfg_sched_policy_name(cfg->scheduler.policy), &pol) == SCHED_OK)
        sc.policy = pol;
    sc.max_vgpus = cfg->n_guests;
    sc.max_batch = DISPATCH_MAX;
    sc.queue_depth = VGPU_QUEUE_MAX;
    if (cfg->scheduler.slice_us)
        sc.slice_ns = SCHED_US(cfg->scheduler.slice_us);
    if (cfg->scheduler.workload_limit_us)
        sc.watchdog_ns = SCHED_US(cfg->scheduler.workload_limit_us);
    char err[160];
    if (sched_config_check(&sc, err, sizeof err) != SCHED_OK)
        return fail(err);
    struct sched_clock clk = { env_now, NULL };
    if (sched_create(&sc, &clk, &vgpu_host.sched) != SCHED_OK)
        return fail("the render scheduler did not start");

    uint64_t hws = gpu.layout.host.start + vgpu_host.host_bytes - GEN9_GTT_PAGE_SIZE;
    struct vgpu_dev_config dc = {
        .gtt = &gpu.gtt,
        .sched = vgpu_host.sched,
        .igpu = gpu.igpu,
        .host = { gpu.layout.host.start, (void *)(uintptr_t)vgpu_host.host_phys,
                  vgpu_host.host_bytes - 2 * GEN9_GTT_PAGE_SIZE },
        .engine_hws_gm = (uint32_t)hws,
        .env = { NULL, env_guest_ram, env_now, env_gpu_run, env_cpu_ns, env_gpu_fault, env_log,
                 env_aperture_rw, env_page_alloc, env_page_free, env_guest_phys, env_phys_ptr,
                 env_protect, env_msi, env_cpu_wanted },
        .max_vgpus = cfg->n_guests,
        .balloon_controller = cfg->balloon.enabled && cfg->balloon.period_ms,
        .render_budget_ns = RENDER_BUDGET_NS,
        .cpu_sched = &sc, /* the i915 guests' RCS/VCS/VECS run on the CPU */
    };
    if (vgpu_dev_create(&dc, &vgpu_host.dev) != 0)
        return fail("the vGPU device did not start");
    for (unsigned i = 0; i < cfg->n_guests; i++) {
        const struct cfg_guest *g = &cfg->guest[i];
        struct vm *vm = vm_get(i);
        const struct vgpu_personality *p = g->vgpu == CFG_VGPU_I915 ? &vgpu_i915 : &vgpu_kiosk;
        if (sched_vgpu_add(vgpu_host.sched, i, g->weight) != SCHED_OK ||
            vgpu_create(vgpu_host.dev, i, g->tile.width, g->tile.height, p) != 0 || !vm)
            return fail("a vGPU could not be created");
        struct vgpu *v = vgpu_get(vgpu_host.dev, i);
        if (g->vgpu_display == CFG_DISPLAY_DP && !configure_monitor(v, g))
            return fail("a vGPU's display could not be set up");
        if (!attach(vm, v))
            return fail("no room for the vGPU's MMIO regions or device");
    }
    wall_init(cfg, wall_source);
    vcpu_set_render_cpu(render_cpu_of);
    vgpu_host.balloon_next_ns = timer_now_ns() + (uint64_t)cfg->balloon.period_ms * 1000000ull;
    vgpu_host.last_period_ns = timer_now_ns();
    vgpu_host.ready = true;
    log_info(
        "vgpu: %u vGPUs on the %s (model costs x%u.%03u from calibration), scheduler %s, slice %llu us",
        cfg->n_guests, gpu.model ? "software Gen9 model" : "GPU", vgpu_host.cost_scale / 1000,
        vgpu_host.cost_scale % 1000, sched_policy_name(sc.policy),
        (unsigned long long)(sc.slice_ns / 1000));
    return true;
}


/* ---- the balloon controller's period ------------------------------------------------------ */

static void balloon_period(const struct cfg *cfg, uint64_t now)
{
    uint64_t wait, demand;
    vcpu_wait_stats(&wait, &demand);
    struct vgpu_render_stats rs;
    vgpu_render_stats_get(vgpu_host.dev, &rs);
    uint64_t dw = wait - vgpu_host.last_wait_ns, dd = demand - vgpu_host.last_demand_ns;
    uint64_t dc = rs.copy_cpu_ns - vgpu_host.last_copy_ns, dt = now - vgpu_host.last_period_ns;
    vgpu_host.last_wait_ns = wait;
    vgpu_host.last_demand_ns = demand;
    vgpu_host.last_copy_ns = rs.copy_cpu_ns;
    vgpu_host.last_period_ns = now;
    vgpu_host.last_w_ppm = dd ? (uint32_t)(dw * 1000000ull / dd) : 0;
    vgpu_host.last_rcopy_ppm = dt ? (uint32_t)(dc * 1000000ull / dt) : 0;
    struct gtt_ctl_params p;
    gtt_ctl_defaults(&p);
    p.th_low = cfg->balloon.low_threshold_pct * 20; /* percent of f's maximum, 2.0 */
    p.th_high = cfg->balloon.high_threshold_pct * 20;
    p.period_ms = cfg->balloon.period_ms;
    struct gtt_ctl_report rep;
    if (vgpu_balloon_period(vgpu_host.dev, &p, vgpu_host.last_w_ppm, vgpu_host.last_rcopy_ppm,
                            &rep) < 0)
        log_warn("vgpu: balloon period failed");
}

/* The rendering under way is its owner's CPU time: a guest that has used less CPU and wants
 * it (a vCPU that polls for its frame, or whose timer fired) gets it back now, not a piece
 * later (vmm/vcpu/cpu_share.h). */
static bool owed_cpu(void)
{
    unsigned owner = vgpu_render_owner(vgpu_host.dev);
    if (owner != VGPU_MAX && vcpu_owed_cpu(owner))
        return true;
    for (unsigned e = 0; e < IGPU_NUM_GT_ENGINES; e++) {
        owner = vgpu_cpu_engine_owner(vgpu_host.dev, (enum igpu_engine)e);
        if (owner != VGPU_MAX && vcpu_owed_cpu(owner))
            return true;
    }
    return false;
}

bool vgpu_host_poll(uint64_t budget_us)
{
    static uint64_t last_end;
    static bool was_busy;
    uint64_t now = timer_now_ns();
    if (!vgpu_host.ready)
        return wall_poll(now);
    /* A GPU that had nothing to do since the last call let that wall time pass idle; one with
     * work only advances by what it executes (the model runs only here). */
    if (gpu.model && !was_busy && last_end && now > last_end) {
        gpu_model_lock();
        igpu_model_advance(gpu.model, now - last_end);
        gpu_model_unlock();
    }
    const struct cfg *cfg = &active_config.cfg;
    if (cfg->balloon.enabled && cfg->balloon.period_ms && now >= vgpu_host.balloon_next_ns) {
        balloon_period(cfg, now);

        vgpu_host.balloon_next_ns = now + (uint64_t)cfg->balloon.period_ms * 1000000ull;
    }
    /* Fence work guests' fence writes left: a bounded amount each, between the time slices,
     * but not while a guest that woke waits for the CPU (the work is the writer's, not its). */
    if (!vcpu_wake_pending())
        vgpu_dev_fence_work(vgpu_host.dev, VGPU_FENCE_POLL_PAGES);
    /* Displays: their vblanks, flips and interrupts come due with time. */
    vgpu_dev_tick(vgpu_host.dev, now);
    if (now >= vgpu_host.place_next_ns) {
        vgpu_place_period(vgpu_host.dev);
        vgpu_host.place_next_ns = now + PLACE_PERIOD_NS;
    }
    /* The model stands in for a GPU that runs beside the CPU: it gets the CPU the vCPUs leave,
     * in pieces of up to budget_us, and gives it back at once when a guest is waiting for the
     * CPU — a halted vCPU whose interrupt is ready, or a guest whose workload just retired
     * (it polls for that) — so what the model executes for one guest does not delay another's
     * vCPU by a whole piece (docs/benchmarks.md "Performance isolation"). */
    bool beside = gpu.model && vcpu_render_alone(), busy = was_busy;
    uint64_t end = now + budget_us * 1000, retired = vgpu_render_retired(vgpu_host.dev);
    for (;;) {
        if (beside && busy)
            run_beside(); /* the step below takes in what it executed */
        busy = vgpu_render_step(vgpu_host.dev);
        if (!busy || timer_now_ns() >= end || vgpu_render_retired(vgpu_host.dev) != retired ||
            vcpu_wake_pending() || owed_cpu())
            break;
        if (!beside)
            hv_lock_yield(); /* a step is whole: an exit on another CPU may come in between */
    }
    was_busy = busy;
    last_end = timer_now_ns();

    hv_lock_yield();
    bool composing = wall_poll(last_end);
    return busy || composing;
}
