/* IPIs among a guest's vCPUs (see vipi.h).  Section numbers are the Intel SDM Vol. 3A, 2023
 * edition. */
#include "vmm/vdev/vipi.h"

void vipi_cpu_reset(struct vipi_cpu *c, unsigned index)
{
    struct vlapic *l = c->lapic;
    *c = (struct vipi_cpu){
        .lapic = l,
        .mp = index ? VIPI_WAIT_FOR_SIPI : VIPI_RUNNABLE,
        .bsp = index == 0,
    };
}

/* The vCPUs the IPI's destination names, before its delivery mode is considered. */
static uint64_t destinations(struct vipi_cpu *const *cpus, unsigned n, unsigned from,
                             const struct vlapic_ipi *ipi)
{
    uint64_t all = n >= VIPI_MAX_CPUS ? ~0ull : (1ull << n) - 1;
    switch (ipi->shorthand) {
    case LAPIC_ICR_SELF:
        return 1ull << from;
    case LAPIC_ICR_ALL_INCLUDING:
        return all;
    case LAPIC_ICR_ALL_EXCLUDING:
        return all & ~(1ull << from);
    default: {
        uint64_t set = 0;
        for (unsigned i = 0; i < n; i++)
            if (vlapic_is_destination(cpus[i]->lapic, ipi->dest, ipi->logical))
                set |= 1ull << i;
        return set;
    }
    }
}

/* The valid combinations of shorthand and delivery mode (§11.6.1, "Valid Combinations for the
 * Local xAPIC Interrupt Command Register"): self and all-including-self take fixed IPIs only. */
static bool valid_with_shorthand(const struct vlapic_ipi *ipi)
{
    if (ipi->shorthand == LAPIC_ICR_SELF || ipi->shorthand == LAPIC_ICR_ALL_INCLUDING)
        return ipi->mode == LAPIC_ICR_FIXED;
    return true;
}

static bool init(struct vipi_cpu *c, const struct vlapic_ipi *ipi)
{
    if (ipi->level_deassert)
        return false; /* §11.6.1: "INIT level de-assert" only synchronises arbitration IDs */
    if (c->bsp) {
        c->lapic->ignored_ipis++;
        return false;
    }
    vlapic_init_reset(c->lapic);
    c->mp = VIPI_WAIT_FOR_SIPI;
    c->init_reset = true;
    c->sipi_start = false; /* a STARTUP not yet acted on is lost with the reset */
    return true;
}

static bool startup(struct vipi_cpu *c, const struct vlapic_ipi *ipi)
{
    if (c->mp != VIPI_WAIT_FOR_SIPI)
        return false; /* running, or the second STARTUP of the pair: dropped */
    c->mp = VIPI_RUNNABLE;
    c->sipi_start = true;
    c->sipi_vector = ipi->vector;
    return true;
}

uint64_t vipi_route(struct vipi_cpu *const *cpus, unsigned n, unsigned from,
                    const struct vlapic_ipi *ipi)
{
    if (n > VIPI_MAX_CPUS)
        n = VIPI_MAX_CPUS;
    if (from >= n)
        return 0;
    uint64_t dest = destinations(cpus, n, from, ipi), reached = 0;
    bool valid = valid_with_shorthand(ipi);
    for (unsigned i = 0; i < n; i++) {
        if (!(dest >> i & 1))
            continue;
        struct vipi_cpu *c = cpus[i];
        if (!valid) {
            c->lapic->ignored_ipis++;
            continue;
        }
        switch (ipi->mode) {
        case LAPIC_ICR_FIXED:
            vlapic_accept(c->lapic, ipi->vector);
            reached |= 1ull << i;
            break;
        case LAPIC_ICR_LOWEST_PRIORITY:
            vlapic_accept(c->lapic, ipi->vector);
            return 1ull << i; /* one receiver: the first */
        case LAPIC_ICR_INIT:
            if (init(c, ipi))
                reached |= 1ull << i;
            break;
        case LAPIC_ICR_STARTUP:
            if (startup(c, ipi))
                reached |= 1ull << i;
            break;
        default: /* NMI, SMI, and the reserved modes */
            c->lapic->ignored_ipis++;
            break;
        }
    }
    return reached;
}
