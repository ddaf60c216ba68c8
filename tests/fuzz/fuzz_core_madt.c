/* libFuzzer target for the ACPI MADT walk (boot/acpi_madt.c).  The input is physical memory at
 * MEM_BASE whose first bytes are taken as the RSDP, and, separately, a MADT on its own: either
 * way the walk never reads outside what it was given (AddressSanitizer), and what it accepts
 * keeps its rules: at most MADT_MAX_CPUS processors, no APIC ID twice, no xAPIC entry with the
 * broadcast ID, and a MADT whose bytes sum to zero. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boot/acpi.h"
#include "boot/acpi_madt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MEM_BASE 0x1000ULL

struct region {
    const uint8_t *p;
    size_t size;
};

static const void *at(void *ctx, uint64_t phys, uint64_t len)
{
    const struct region *r = ctx;
    if (phys < MEM_BASE || len > r->size || phys - MEM_BASE > r->size - len)
        return NULL;
    return r->p + (phys - MEM_BASE);
}

static void check(int cond)
{
    if (!cond)
        abort();
}

static void check_info(const struct madt_info *info)
{
    check(info->n_cpus <= MADT_MAX_CPUS);
    for (unsigned i = 0; i < info->n_cpus; i++) {
        check(info->cpus[i].x2apic || info->cpus[i].apic_id != 0xFF);
        for (unsigned j = 0; j < i; j++)
            check(info->cpus[i].apic_id != info->cpus[j].apic_id);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct madt_info info;
    char err[160];
    /* Exactly-sized copies, so a read one byte past is caught. */
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);

    if (madt_parse(copy, size, &info, err, sizeof err) == 0) {
        uint32_t len;
        memcpy(&len, copy + ACPI_HDR_LENGTH, 4);
        uint8_t s = 0;
        for (uint32_t i = 0; i < len; i++)
            s += copy[i];
        check(s == 0 && len <= size);
        check_info(&info);
    }

    struct region r = { copy, size };
    struct acpi_memory mem = { at, &r };
    size_t rsdp_len = size < ACPI_RSDP_BYTES ? size : ACPI_RSDP_BYTES;
    if (madt_find(copy, rsdp_len, &mem, &info, err, sizeof err) == 0)
        check_info(&info);
    free(copy);
    return 0;
}
