/* The guest ABI: what a Tessera guest finds when it starts, and how it asks the hypervisor for
 * something.  Shared by the hypervisor (vmm/) and the guest library (guests/lib); never change
 * an existing field's offset, only append.  Documented in docs/guest-abi.md.
 *
 * Boot protocol (docs/guest-abi.md, modelled on Linux's 64-bit boot protocol, where RSI points to
 * boot_params): the vCPU starts in 64-bit long mode at the ELF entry point, CPL 0, paging on
 * with identity page tables (2 MiB pages) built by the hypervisor at TESSERA_GUEST_PT_BASE over
 * the low 4 GiB or all guest RAM if that is more (so an access outside RAM reaches the
 * hypervisor instead of faulting in the guest), interrupts off (RFLAGS.IF = 0, no IDT),
 * RSI = TESSERA_GUEST_BOOT_INFO (guest-physical address of struct tessera_boot_info),
 * RSP = the top of guest RAM.  Everything from 1 MiB to the top of RAM outside the loaded image
 * is the guest's to use (heap, stacks); the pages below 1 MiB hold what the hypervisor built.
 * HLT with interrupts off means "nothing to do until later": the vCPU yields and resumes after
 * the HLT; HLT with interrupts on waits for an interrupt.  Interrupt controllers: a local APIC
 * in x2APIC mode (IA32_APIC_BASE EN|EXTD at start, registers as MSRs 0x800-0x8FF, TSC-deadline
 * timer), an 8259A pair behind LINT0 (ExtINT), the console UART on IRQ 4 (docs/vdev.md).
 * Each guest has its own x87/SSE state; the exception bitmap is empty, so the guest's IDT
 * handles its own faults.  See docs/guest-abi.md. */
#ifndef TESSERA_ABI_GUEST_H
#define TESSERA_ABI_GUEST_H

#include <stdint.h>

/* Guest-physical layout of the low pages (all inside guest RAM, which starts at 0). */
#define TESSERA_GUEST_BOOT_INFO 0x1000ULL   /* struct tessera_boot_info, one page */
#define TESSERA_GUEST_GDT       0x2000ULL   /* flat 64-bit GDT the vCPU starts with */
#define TESSERA_GUEST_PT_BASE   0x3000ULL   /* PML4, then PDPT, then page directories */
#define TESSERA_GUEST_IMAGE_MIN 0x100000ULL /* ELF segments must load at or above 1 MiB */

/* Selectors of that GDT: 0x08 64-bit code, 0x10 data. */
#define TESSERA_GUEST_CS 0x08
#define TESSERA_GUEST_DS 0x10

#define TESSERA_BOOT_MAGIC        0x5453524754534554ULL /* "TESTGRST" little-endian */
#define TESSERA_BOOT_VERSION      1
#define TESSERA_GUEST_NAME_MAX    16
#define TESSERA_GUEST_CMDLINE_MAX 256

struct tessera_boot_info {
    uint64_t magic;                    /* TESSERA_BOOT_MAGIC */
    uint32_t version;                  /* TESSERA_BOOT_VERSION */
    uint32_t guest_id;                 /* index in the vendor configuration, from 0 */
    uint64_t ram_bytes;                /* guest RAM: guest-physical [0, ram_bytes) */
    uint64_t tsc_hz;                   /* the TSC rate; RDTSC does not exit */
    uint64_t boot_count;               /* 1 on the first start, +1 on each `vm reset`/`vm start` */
    char name[TESSERA_GUEST_NAME_MAX]; /* NUL-terminated */
    char cmdline[TESSERA_GUEST_CMDLINE_MAX]; /* NUL-terminated */
};

/* The guest's console: a 16550 UART at the PC's COM1 port, emulated per guest. */
#define TESSERA_GUEST_CONSOLE_PORT 0x3F8

/* Hypercalls: VMCALL with the call number in RAX and arguments in RDI, RSI; result in RAX. */
#define TESSERA_HC_EXIT           1              /* RDI = exit status; the guest stops */
#define TESSERA_HC_YIELD          2              /* give up the rest of this time slice */
#define TESSERA_HC_UNKNOWN_RESULT ((uint64_t)-1) /* what an unknown call returns */

/* CPUID leaf 0x40000000 (the hypervisor range) answers EAX = highest hypervisor leaf and
 * EBX:ECX:EDX = "TesseraVMM\0\0". */
#define TESSERA_CPUID_LEAF      0x40000000u
#define TESSERA_CPUID_SIGNATURE "TesseraVMM\0\0"

#endif
