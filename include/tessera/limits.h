/* How many guests one Tessera runs at once: the vendor configuration may name at most this many
 * (config/), and every table the hypervisor keeps per guest has this many entries (the vGPUs,
 * the virtual PCI buses, the log's rate limits, the wall's tiles, the vCPU run loop).  In
 * include/ so that every room, the pure libraries included, names it without reaching up to
 * config/.  gtt/ and sched/ are libraries with larger id spaces of their own (GTT_MAX_VGPUS,
 * SCHED_MAX_VGPUS); they assert that this many fit. */
#ifndef TESSERA_LIMITS_H
#define TESSERA_LIMITS_H

#define TESSERA_MAX_GUESTS 64u

#endif
