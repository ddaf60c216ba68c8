/* Interprocessor interrupts among one guest's vCPUs: where an IPI its local APIC sent goes, and
 * what INIT and STARTUP do to the vCPU that receives them.  Pure: the vCPUs' owner passes their
 * local APICs and start-up states in, applies the register-state changes this asks for (a reset
 * on INIT, a real-mode entry on STARTUP) and kicks the vCPUs this names.
 *
 * Routing (Intel SDM Vol. 3A §11.6.1, §11.12.9 "ICR Operation in x2APIC Mode"):
 * - destinations: a physical x2APIC ID, a logical cluster and bitmap (§11.12.10.2), the
 *   broadcast ID 0xFFFFFFFF, or a shorthand (self, all including self, all excluding self);
 * - fixed IPIs reach every destination; lowest-priority ones reach one (the first destination
 *   in vCPU order: arbitration by priority is not modelled, and Linux sends none in x2APIC mode);
 * - the shorthands self and all-including-self are valid only with fixed delivery (the SDM's
 *   table of valid ICR combinations); other modes with them, and NMI and SMI (not modelled),
 *   are ignored and counted in the receivers' `ignored_ipis`.
 *
 * INIT and STARTUP (SDM Vol. 3A §9.4.4 "MP Initialization Example", §11.6.1; the state machine
 * KVM's lapic.c and ACRN's vlapic.c keep):
 * - an application processor starts in VIPI_WAIT_FOR_SIPI and does not run;
 * - INIT (level assert, or edge) to an AP resets it and it waits for a STARTUP again; an INIT
 *   level de-assert, which Linux still sends, does nothing; INIT to the bootstrap processor
 *   is ignored (there is no firmware here to run it again from its reset vector);
 * - the first STARTUP an AP receives while it waits starts it in real mode at
 *   CS = vector << 8, IP = 0 (base vector << 12); every other STARTUP is dropped, as the second
 *   of the two the MP protocol sends must be. */
#ifndef TESSERA_VMM_VDEV_VIPI_H
#define TESSERA_VMM_VDEV_VIPI_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vdev/vlapic.h"

#define VIPI_MAX_CPUS 64u /* vCPUs per guest: the kick mask is one 64-bit word */

enum vipi_mp_state {
    VIPI_RUNNABLE,      /* runs (or halts and waits for interrupts) as usual */
    VIPI_WAIT_FOR_SIPI, /* an AP before its STARTUP, or after an INIT: never entered */
};

/* One vCPU as the router sees it. */
struct vipi_cpu {
    struct vlapic *lapic;
    enum vipi_mp_state mp;
    bool bsp; /* the bootstrap processor: INIT does not reach it */
    /* What vipi_route asks of the vCPU's owner, which clears them once done: */
    bool init_reset;     /* INIT: reset its registers (its APIC is reset already); it waits */
    bool sipi_start;     /* STARTUP while waiting: enter real mode at sipi_vector << 12 */
    uint8_t sipi_vector; /* valid with sipi_start */
};

/* The state vCPU `index` of a guest starts in: vCPU 0 is the BSP and runs, the others wait for
 * a STARTUP.  Does not touch the APIC. */
void vipi_cpu_reset(struct vipi_cpu *c, unsigned index);

/* Delivers the IPI that cpus[from] sent (its vlapic_wrmsr returned VLAPIC_IPI_SENT) among the
 * guest's n vCPUs (cpus[i] is vCPU i, x2APIC ID i).  Returns the set of vCPUs (bit i: cpus[i])
 * that something reached and that must look at it: their owners kick them. */
uint64_t vipi_route(struct vipi_cpu *const *cpus, unsigned n, unsigned from,
                    const struct vlapic_ipi *ipi);

#endif
