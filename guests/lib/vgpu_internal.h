/* What the vGPU library's files share and guests do not use directly. */
#ifndef TESSERA_GUESTS_LIB_VGPU_INTERNAL_H
#define TESSERA_GUESTS_LIB_VGPU_INTERNAL_H

#include "guests/lib/vgpu.h"

#include <stdint.h>

/* BAR0 accesses exit to the hypervisor, which decodes the faulting instruction
 * (vmm/vcpu/mmio_decode.h: the MOV forms only).  Written as single MOVs in assembly so the compiler
 * can never use a form the decoder refuses (SSE moves, read-modify-write instructions). */
static inline uint32_t vgpu_mmio_rd32(const volatile void *p)
{
    uint32_t v;
    __asm__ volatile("movl %1, %0" : "=r"(v) : "m"(*(const volatile uint32_t *)p) : "memory");
    return v;
}

static inline uint64_t vgpu_mmio_rd64(const volatile void *p)
{
    uint64_t v;
    __asm__ volatile("movq %1, %0" : "=r"(v) : "m"(*(const volatile uint64_t *)p) : "memory");
    return v;
}

static inline void vgpu_mmio_wr32(volatile void *p, uint32_t v)
{
    __asm__ volatile("movl %1, %0" : "=m"(*(volatile uint32_t *)p) : "r"(v) : "memory");
}

static inline void vgpu_mmio_wr64(volatile void *p, uint64_t v)
{
    __asm__ volatile("movq %1, %0" : "=m"(*(volatile uint64_t *)p) : "r"(v) : "memory");
}

/* Guest RAM shared with the GPU (ring, context image, breadcrumbs): the compiler must neither
 * cache nor reorder these accesses around each other or around the MMIO writes above. */
static inline uint32_t vgpu_ram_rd32(const void *p)
{
    return *(const volatile uint32_t *)p;
}

static inline void vgpu_ram_wr32(void *p, uint32_t v)
{
    *(volatile uint32_t *)p = v;
}

#define vgpu_barrier() __asm__ volatile("" : : : "memory")

/* "<name>: vgpu: " and the message, on one line. */
void vgpu_complain(const struct vgpu *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* vgpu_pci.c: finds and sizes 00:02.0, enables memory decoding; fills device and BARs. */
bool vgpu_pci_probe(struct vgpu *v);

/* vgpu_ring.c: context, ring, status page and breadcrumb page. */
bool vgpu_ring_init(struct vgpu *v);
/* After a re-placement (nothing in flight): the context image's RING_START and RING_HWS_PGA
 * at the ring's and status page's new graphics addresses. */
void vgpu_ring_moved(struct vgpu *v);

/* vgpu_balloon.c: vgpu_refresh_ranges() without the report: true if a range changed now (the
 * caller must see that the guest's own vgpu_refresh_ranges() reports it: ranges_unreported). */
bool vgpu_ranges_apply(struct vgpu *v, bool force);

/* vgpu_move.c: tells the vGPU how much of the low range the guest uses (plus `more` it needs
 * and could not get), so re-placement sizes the range to it. */
void vgpu_moves_report_low(struct vgpu *v, uint64_t more);

#endif
