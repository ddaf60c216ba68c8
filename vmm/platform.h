/* What boot learned about the machine, for the rest of the hypervisor and the shell. */
#ifndef TESSERA_VMM_PLATFORM_H
#define TESSERA_VMM_PLATFORM_H

#include "arch/x86/page_alloc.h"
#include "arch/x86/vmx_caps.h"
#include "boot/boot_info.h"

struct platform {
    struct boot_info boot;
    struct page_alloc pages;
    struct phys_range reserved[BOOT_MAX_MODULES + 8];
    unsigned n_reserved;
    uint64_t mapped_top; /* identity mapping ends here */
    uint64_t heap_base, heap_size;
    struct vmx_caps vmx;
    char vmx_line[160];
    uint64_t boot_done_us; /* uptime when the prompt first appeared */
};

extern struct platform platform;

#endif
