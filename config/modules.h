/* The module check: a checked configuration against the boot modules it names.
 *
 * cfg_check_dtb() looks at the configuration alone.  What a guest boots is only known with the
 * modules in hand: at build time tools/tessera-config gets the files the ISO will carry
 * (`check-modules`), at boot the hypervisor has GRUB's module2 list.  Both call the same checks
 * here, so a configuration the build accepts with its modules is one the hypervisor accepts with
 * the same modules.  Refusals name the guest's node and the property to change, e.g.
 *   "/guests/linux: ram-mib: kernel 'vmlinuz': the kernel needs RAM up to 80 MiB (loaded at
 *    0x1000000, init_size 0x3f98000), the guest has 64 MiB" */
#ifndef CONFIG_MODULES_H
#define CONFIG_MODULES_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "boot/linux/bzimage.h"
#include "boot/linux/linux_place.h"

/* A boot module: GRUB's module2 (its command line is the tag) or a file at build time. */
struct cfg_module {
    const char *tag;
    const void *data;
    size_t len;
};

/* What the module check found for a Linux guest: the kernel's header and where the kernel and
 * initrd go, decided by the hypervisor's own loader (boot/linux/bzimage.h, linux_place.h), so
 * the build and the boot agree on every kernel, initrd and command line. */
struct cfg_linux_fit {
    struct bzimage_info kernel;
    struct linux_placement place;
    uint64_t ram_bytes;
    uint64_t initrd_bytes; /* 0 without an initrd */
};

/* Checks guest `id` of c against the modules: its image (and a Linux guest's initrd) present,
 * a Tessera guest's image an ELF64 file, a Linux guest's kernel a bzImage the loader accepts
 * (bzimage_parse) and a placement of kernel, initrd and command line in its RAM (linux_place).  On CFG_OK
 * a Linux guest's layout is in *fit (if fit is not NULL).  On CFG_EINVALID err holds one line
 * naming the guest's node and property. */
int cfg_check_guest_modules(const struct cfg *c, unsigned id, const struct cfg_module *mods,
                            unsigned n_mods, struct cfg_linux_fit *fit, char *err, size_t errlen);

/* The same for every guest; stops at the first refusal. */
int cfg_check_modules(const struct cfg *c, const struct cfg_module *mods, unsigned n_mods,
                      char *err, size_t errlen);

/* One line describing a Linux guest's checked layout (no newline), e.g.
 *   "linux: kernel vmlinuz (boot protocol 2.15) at 16.0..79.6 MiB, initrd initramfs 1.0 MiB
 *    at 255.0..256.0 MiB, RAM 256 MiB"
 * Returns what snprintf returns. */
int cfg_linux_fit_summary(const struct cfg *c, unsigned id, const struct cfg_linux_fit *fit,
                          char *buf, size_t len);

#endif
