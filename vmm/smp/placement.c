#include "vmm/smp/placement.h"

unsigned smp_place(uint64_t usable, unsigned want)
{
    usable |= 1;
    if (want < 64 && (usable >> want & 1))
        return want;
    unsigned n = (unsigned)__builtin_popcountll(usable), k = want % n;
    for (unsigned cpu = 0; cpu < 64; cpu++)
        if ((usable >> cpu & 1) && k-- == 0)
            return cpu;
    return 0;
}
