/* Where a Linux guest's kernel, command line and initrd go in its RAM, decided from the bzImage
 * header before anything is copied, so a kernel or initrd that cannot fit is refused with the
 * numbers (and the configuration checker can ask the same question at build time).  Pure.
 *
 * boot.rst: the protected-mode code is loaded at an address aligned to kernel_alignment (its
 * pref_address when it can be used), the kernel then needs [load, load + init_size) free; the
 * initrd may not extend past initrd_addr_max; the command line is at most cmdline_size bytes
 * without its NUL. */
#ifndef TESSERA_BOOT_LINUX_LINUX_PLACE_H
#define TESSERA_BOOT_LINUX_LINUX_PLACE_H

#include <stddef.h>
#include <stdint.h>

#include "boot/linux/bzimage.h"

#define LINUX_PAGE_BYTES 4096u

struct linux_placement {
    uint64_t load_gpa;       /* the protected-mode code */
    uint64_t entry_gpa;      /* load_gpa + BZ_ENTRY64_OFFSET */
    uint64_t kernel_end_gpa; /* load_gpa + init_size */
    uint64_t initrd_gpa;     /* page aligned, as high as it may go; 0 without an initrd */
};

#define LINUX_PLACE_OK       0
#define LINUX_PLACE_ERAM     (-1) /* RAM too small or too large for the layout */
#define LINUX_PLACE_EINITRD  (-2) /* the initrd does not fit */
#define LINUX_PLACE_ECMDLINE (-3) /* the command line is too long */
#define LINUX_PLACE_ELOAD    (-4) /* no load address the kernel accepts */

/* Places a kernel described by `bi` with an initrd of `initrd_bytes` (0: none) and a command
 * line of `cmdline_len` bytes (without NUL) in `ram_bytes` of guest RAM.  On error writes one
 * line with the numbers into err. */
int linux_place(const struct bzimage_info *bi, uint64_t ram_bytes, uint64_t initrd_bytes,
                size_t cmdline_len, struct linux_placement *out, char *err, size_t errlen);

/* The least RAM (in bytes, a whole number of MiB) in which linux_place succeeds for this kernel
 * and initrd: what a configuration must give the guest; 0 when no amount of RAM does. */
uint64_t linux_ram_needed(const struct bzimage_info *bi, uint64_t initrd_bytes);

#endif
