/* Costs of the pure VT-x helpers on the host: the MMIO decoder plus register merge (the
 * software part of an EPT-violation round trip), the MSR-bitmap lookup, an EPT walk, and
 * building EPT tables for guest RAM with 2 MiB and with 4 KiB pages.  Prints a table. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arch/x86/vmx/pure/ept.h"
#include "vmm/vcpu/mmio_decode.h"
#include "vmm/vcpu/msr_bitmap.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Arena for EPT tables: a bump allocator over one big zeroed block. */
struct arena {
    uint8_t *mem;
    size_t pages, next;
};
#define ARENA_PHYS 0x100000000ULL

static uint64_t a_alloc(void *ctx)
{
    struct arena *a = ctx;
    if (a->next >= a->pages)
        return 0;
    memset(a->mem + a->next * 4096, 0, 4096);
    return ARENA_PHYS + 4096 * (uint64_t)a->next++;
}
static void a_free(void *ctx, uint64_t phys)
{
    (void)ctx;
    (void)phys;
}
static void *a_virt(void *ctx, uint64_t phys)
{
    struct arena *a = ctx;
    return a->mem + (phys - ARENA_PHYS);
}

static volatile uint64_t sink;

int main(void)
{
    static const uint8_t insns[][12] = {
        { 0x89, 0x07 },                            /* mov [rdi], eax */
        { 0x8B, 0x87, 0x00, 0x10, 0x00, 0x00 },    /* mov eax, [rdi+0x1000] */
        { 0x48, 0x8B, 0x44, 0x24, 0x08 },          /* mov rax, [rsp+8] */
        { 0xC7, 0x05, 0x10, 0, 0, 0, 1, 0, 0, 0 }, /* mov dword [rip+16], 1 */
        { 0x0F, 0xB6, 0x07 },                      /* movzx eax, byte [rdi] */
        { 0x88, 0x27 },                            /* mov [rdi], ah */
    };
    const unsigned n_insns = sizeof insns / sizeof insns[0];
    const long iters = 20000000;

    printf("%-44s %12s\n", "operation", "ns/op");

    double t0 = now_ns();
    uint64_t acc = 0;
    for (long i = 0; i < iters; i++) {
        struct mmio_insn d;
        const uint8_t *b = insns[i % n_insns];
        if (mmio_decode(b, sizeof insns[0], &d) == 0)
            acc += d.is_write ? mmio_store_value(&d, (uint64_t)i)
                              : mmio_load_result(&d, acc, (uint64_t)i);
    }
    sink = acc;
    printf("%-44s %12.1f\n", "mmio_decode + load/store helper", (now_ns() - t0) / iters);

    static uint8_t bm[MSR_BITMAP_BYTES];
    msr_bitmap_init(bm);
    msr_bitmap_allow(bm, 0xC0000080u, true, false);
    t0 = now_ns();
    acc = 0;
    for (long i = 0; i < iters; i++)
        acc += msr_bitmap_exits(bm,
                                (i & 1) ? 0xC0000000u + (uint32_t)(i & 0x1FFF)
                                        : (uint32_t)(i & 0x1FFF),
                                i & 2);
    sink = acc;
    printf("%-44s %12.1f\n", "msr_bitmap_exits", (now_ns() - t0) / iters);

    struct arena a = { aligned_alloc(4096, 4096 * 4096), 4096, 0 };
    if (!a.mem)
        return 1;
    struct ept_ops ops = { a_alloc, a_free, a_virt, &a };
    const uint64_t ram = 1ULL << 30;
    const int reps = 20;

    double t_large = 0, t_small = 0;
    unsigned tables_large = 0, tables_small = 0;
    struct ept e;
    for (int r = 0; r < reps; r++) {
        a.next = 0;
        ept_init(&e, &ops);
        t0 = now_ns();
        if (ept_map(&e, 0, 0x200000000ULL, ram, EPT_PERM_RWX, EPT_MT_WB))
            return 1;
        t_large += now_ns() - t0;
        tables_large = e.tables;
        a.next = 0;
        ept_init(&e, &ops);
        t0 = now_ns();
        if (ept_map(&e, 0, 0x200001000ULL, ram, EPT_PERM_RWX, EPT_MT_WB))
            return 1;
        t_small += now_ns() - t0;
        tables_small = e.tables;
    }
    printf("%-44s %12.0f   (%u tables)\n", "ept_map 1 GiB, 2 MiB pages (whole call)",
           t_large / reps, tables_large);
    printf("%-44s %12.0f   (%u tables)\n", "ept_map 1 GiB, 4 KiB pages (whole call)",
           t_small / reps, tables_small);

    t0 = now_ns();
    acc = 0;
    for (long i = 0; i < iters; i++) {
        uint64_t h;
        ept_walk(&e, ((uint64_t)i * 0x9E3779B1u) & (ram - 1), &h, NULL, NULL, NULL);
        acc += h;
    }
    sink = acc;
    printf("%-44s %12.1f\n", "ept_walk (4-level, 4 KiB leaf)", (now_ns() - t0) / iters);
    free(a.mem);
    return 0;
}
