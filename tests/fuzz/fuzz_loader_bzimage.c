/* libFuzzer target for the bzImage header parser and what the loader builds from an accepted
 * header (boot/linux/bzimage.c, linux_place.c, zero_page.c).  The image is copied into a heap
 * buffer of exactly its size, so ASan catches any read past the file.  Checked: only the
 * documented results, an error line for every refusal, an accepted header's sizes inside the
 * file, a placement inside RAM with the initrd above the kernel and below initrd_addr_max, and
 * a zero page whose header copy stays inside the image. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boot/linux/bzimage.h"
#include "boot/linux/linux_layout.h"
#include "boot/linux/linux_place.h"
#include "boot/linux/zero_page.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The first 8 bytes choose the guest: RAM in MiB and the initrd's size. */
    uint32_t ram_mib = 0, initrd = 0;
    if (size >= 8) {
        memcpy(&ram_mib, data, 4);
        memcpy(&initrd, data + 4, 4);
        data += 8;
        size -= 8;
    }
    uint8_t *img = malloc(size ? size : 1);
    if (!img)
        abort();
    memcpy(img, data, size);

    struct bzimage_info bi;
    char err[160];
    int rc = bzimage_parse(img, size, &bi, err, sizeof err);
    check(rc == BZ_OK || rc == BZ_ETRUNCATED || rc == BZ_ECORRUPT || rc == BZ_EUNSUPPORTED);
    check(memchr(err, 0, sizeof err) != NULL);
    if (rc != BZ_OK) {
        check(err[0] != 0);
        free(img);
        return 0;
    }
    check(bi.version >= BZ_PROTOCOL_MIN);
    check(bi.header_end <= size && bi.header_end <= bi.setup_bytes);
    check((uint64_t)bi.setup_bytes + bi.kernel_bytes <= size);
    check((uint64_t)bi.payload_offset + bi.payload_length <= bi.kernel_bytes);
    check(bi.kernel_alignment && !(bi.kernel_alignment & (bi.kernel_alignment - 1)));
    check(bi.xloadflags & BZ_XLF_KERNEL_64);

    uint64_t ram = ((uint64_t)(ram_mib % 4096) + 1) << 20;
    struct linux_placement p;
    rc = linux_place(&bi, ram, initrd, initrd % 3000, &p, err, sizeof err);
    check(rc == LINUX_PLACE_OK || rc == LINUX_PLACE_ERAM || rc == LINUX_PLACE_EINITRD ||
          rc == LINUX_PLACE_ECMDLINE || rc == LINUX_PLACE_ELOAD);
    if (rc == LINUX_PLACE_OK) {
        check(p.load_gpa >= LINUX_KERNEL_MIN_GPA && !(p.load_gpa & (bi.kernel_alignment - 1)));
        check(p.kernel_end_gpa <= ram && ram <= LINUX_FB_GPA);
        check(p.entry_gpa == p.load_gpa + BZ_ENTRY64_OFFSET);
        if (initrd) {
            check(p.initrd_gpa % LINUX_PAGE_BYTES == 0 && p.initrd_gpa >= p.kernel_end_gpa);
            check(p.initrd_gpa + initrd <= ram && p.initrd_gpa + initrd - 1 <= bi.initrd_addr_max);
        }
        check(linux_ram_needed(&bi, initrd) <= ram || bi.initrd_addr_max < ram);
        static uint8_t zp[ZP_BYTES];
        struct zp_config c = { .ram_bytes = ram,
                               .cmdline_gpa = LINUX_CMDLINE_GPA,
                               .initrd_gpa = p.initrd_gpa,
                               .initrd_bytes = initrd };
        check(zp_build(zp, img, &bi, &c) == 0);
        check(memcmp(zp + BZ_HEADER_FIRST, img + BZ_HEADER_FIRST,
                     BZ_TYPE_OF_LOADER - BZ_HEADER_FIRST) == 0);
        check(zp[ZP_E820_ENTRIES] == 3 && zp[ZP_SENTINEL] == 0);
    } else {
        check(err[0] != 0);
    }
    free(img);
    return 0;
}
