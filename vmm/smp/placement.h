/* Where a guest's vCPU runs: the CPU its configuration names when that CPU can run guests here,
 * else folded onto those that can, so that a configuration written for more cores still runs
 * (spread the same way) on fewer.  Pure. */
#ifndef TESSERA_VMM_SMP_PLACEMENT_H
#define TESSERA_VMM_SMP_PLACEMENT_H

#include <stdint.h>

/* usable: bit k set when CPU k can run guests (bit 0, the boot CPU, is taken as set).  Returns
 * `want` when it is usable, else the (want mod n)-th usable CPU, counting from CPU 0, of the n
 * usable ones. */
unsigned smp_place(uint64_t usable, unsigned want);

#endif
