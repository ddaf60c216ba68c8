/* The module check: a checked configuration against the boot modules it names.
 *
 * cfg_check_dtb() looks at the configuration alone.  What a guest boots is only known with the
 * modules in hand: at build time tools/tessera-config gets the files the ISO will carry
 * (`check-modules`), at boot the hypervisor has GRUB's module2 list.  Both call the same checks
 * here, so a configuration the build accepts with its modules is one the hypervisor accepts with
 * the same modules.  Refusals name the guest's node and the property to change, e.g.
 *   "/guests/linux: ram-mib: kernel 'vmlinuz' needs 80.0 MiB (loaded at 16.0 MiB, init_size
 *    63.6 MiB), the guest has 64 MiB" */
#ifndef CONFIG_MODULES_H
#define CONFIG_MODULES_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

/* A boot module: GRUB's module2 (its command line is the tag) or a file at build time. */
struct cfg_module {
    const char *tag;
    const void *data;
    size_t len;
};

/* The boot protocol Tessera loads Linux with: the 64-bit entry (XLF_KERNEL_64) and xloadflags
 * need protocol 2.12 (Documentation/x86/boot.rst, "64-bit Boot Protocol"). */
#define CFG_LINUX_MIN_PROTOCOL  0x020Cu
/* The initrd is placed page-aligned (boot.rst: "the initrd should be page-aligned"). */
#define CFG_LINUX_INITRD_ALIGN  4096u

/* The facts of a bzImage's setup header that decide whether it fits a guest (boot.rst, "The
 * Real-Mode Kernel Header").  Read by cfg_linux_kernel_read (config/linux_header.c); the
 * hypervisor's loader (vmm/loader/) parses the same header fully. */
struct cfg_linux_kernel {
    uint16_t protocol;          /* boot protocol version, e.g. 0x020f = 2.15 */
    uint8_t setup_sects;        /* 512-byte sectors of real-mode code after the boot sector */
    uint16_t xloadflags;        /* XLF_* */
    uint32_t init_size;         /* bytes the kernel needs from its load address until it runs */
    uint64_t pref_address;      /* where a relocatable kernel prefers to be loaded */
    uint32_t kernel_alignment;  /* its load address must be a multiple of this */
    uint32_t initrd_addr_max;   /* the highest address the initrd's last byte may have */
    uint32_t cmdline_size;      /* the longest command line, without its NUL */
};

/* Reads the header of the len-byte bzImage at image.  Returns CFG_OK, or CFG_EINVALID with one
 * line in why naming what is wrong ("not a Linux bzImage: no \"HdrS\" at 0x202", "boot protocol
 * 2.10, Tessera needs 2.12 or later", "truncated: ..."). */
int cfg_linux_kernel_read(const void *image, size_t len, struct cfg_linux_kernel *out,
                          char *why, size_t whylen);

/* Where a Linux guest's kernel and initrd go in its RAM, as checked: the kernel from
 * kernel_start for init_size bytes, the initrd anywhere page-aligned in [kernel_end,
 * initrd_limit). */
struct cfg_linux_fit {
    struct cfg_linux_kernel kernel;
    uint64_t ram_bytes;
    uint64_t kernel_start;      /* pref_address, rounded up to kernel_alignment */
    uint64_t kernel_end;        /* kernel_start + init_size */
    uint64_t initrd_bytes;      /* 0 without an initrd */
    uint64_t initrd_limit;      /* min(RAM, initrd_addr_max + 1) */
};

/* Checks guest `id` of c against the modules: its image (and a Linux guest's initrd) present,
 * a Tessera guest's image an ELF64 file, a Linux guest's kernel a bzImage of protocol 2.12 or
 * later whose init_size fits its RAM, whose cmdline_size takes its command line, and whose
 * initrd fits between the kernel's end and the lower of its RAM and initrd_addr_max.  On CFG_OK
 * a Linux guest's layout is in *fit (if fit is not NULL).  On CFG_EINVALID err holds one line
 * naming the guest's node and property. */
int cfg_check_guest_modules(const struct cfg *c, unsigned id, const struct cfg_module *mods,
                            unsigned n_mods, struct cfg_linux_fit *fit, char *err, size_t errlen);

/* The same for every guest; stops at the first refusal. */
int cfg_check_modules(const struct cfg *c, const struct cfg_module *mods, unsigned n_mods,
                      char *err, size_t errlen);

/* One line describing a Linux guest's checked layout (no newline), e.g.
 *   "linux: kernel vmlinuz (boot protocol 2.15) 16.0..79.6 MiB, initrd initramfs 1.2 MiB
 *    in 79.6..256.0 MiB, RAM 256 MiB"
 * Returns what snprintf returns. */
int cfg_linux_fit_summary(const struct cfg *c, unsigned id, const struct cfg_linux_fit *fit,
                          char *buf, size_t len);

#endif
