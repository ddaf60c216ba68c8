/* A host arena of pages for EPT tables (arch/x86/vmx/pure/ept.h's ept_ops), whose "physical"
 * addresses differ from its virtual ones, so that a mix-up cannot pass; it counts the pages it
 * has handed out, can be told to fail, and poisons what is freed.  For the EPT unit tests and the
 * I/O bus's host test. */
#ifndef TEST_VMX_EPT_ARENA_H
#define TEST_VMX_EPT_ARENA_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define ARENA_PAGES 2048u
#define ARENA_PHYS  0x40000000ULL /* fake physical base of the arena */

struct arena {
    uint8_t *mem;
    bool used[ARENA_PAGES];
    unsigned live;
    int fail_after; /* allocations that still succeed; < 0: never fail */
    unsigned bad_frees;
};

static uint64_t arena_alloc(void *ctx)
{
    struct arena *a = ctx;
    if (a->fail_after == 0)
        return 0;
    if (a->fail_after > 0)
        a->fail_after--;
    for (unsigned i = 0; i < ARENA_PAGES; i++) {
        if (!a->used[i]) {
            a->used[i] = true;
            a->live++;
            memset(a->mem + (size_t)i * 4096, 0, 4096);
            return ARENA_PHYS + (uint64_t)i * 4096;
        }
    }
    return 0;
}

static void arena_free(void *ctx, uint64_t phys)
{
    struct arena *a = ctx;
    uint64_t i = (phys - ARENA_PHYS) / 4096;
    if (phys < ARENA_PHYS || i >= ARENA_PAGES || (phys & 4095) || !a->used[i]) {
        a->bad_frees++;
        return;
    }
    /* poison: a use after free shows up as garbage entries */
    memset(a->mem + i * 4096, 0xCC, 4096);
    a->used[i] = false;
    a->live--;
}

static void *arena_virt(void *ctx, uint64_t phys)
{
    struct arena *a = ctx;
    uint64_t i = (phys - ARENA_PHYS) / 4096;
    if (phys < ARENA_PHYS || i >= ARENA_PAGES || !a->used[i])
        return NULL; /* the test then crashes loudly: a dangling table pointer */
    return a->mem + (phys - ARENA_PHYS);
}

#endif
