/* The few facts of a Linux bzImage's setup header that the module check needs (modules.h).
 *
 * Offsets and meanings: Documentation/x86/boot.rst, "The Real-Mode Kernel Header" (the header
 * sits at 0x1f1 in the file as in boot_params).  This is deliberately small: only what decides
 * whether a kernel fits a guest, plus the checks that make those facts trustworthy.  The
 * hypervisor's full parser (vmm/loader/, with every refusal of the boot protocol) is the one
 * definition the lead folds this into once both exist. */
#include <stdio.h>
#include <string.h>

#include "config/modules.h"

#define HDR_SETUP_SECTS      0x1f1u     /* u8; 0 means 4 (boot.rst) */
#define HDR_BOOT_FLAG        0x1feu     /* u16 0xAA55 */
#define HDR_MAGIC            0x202u     /* "HdrS" */
#define HDR_VERSION          0x206u     /* u16 */
#define HDR_INITRD_ADDR_MAX  0x22cu     /* u32, protocol 2.03+ */
#define HDR_KERNEL_ALIGNMENT 0x230u     /* u32, 2.05+ */
#define HDR_XLOADFLAGS       0x236u     /* u16, 2.12+ */
#define HDR_CMDLINE_SIZE     0x238u     /* u32, 2.06+ */
#define HDR_PREF_ADDRESS     0x258u     /* u64, 2.10+ */
#define HDR_INIT_SIZE        0x260u     /* u32, 2.10+ */
#define HDR_END              0x264u     /* the fields above all lie below this */

#define BOOT_FLAG            0xAA55u
#define SETUP_SECTS_DEFAULT  4u
#define SECTOR_BYTES         512u
#define XLF_KERNEL_64        (1u << 0)  /* has the 64-bit entry at load + 0x200 */

static uint32_t le(const uint8_t *p, unsigned n)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static int refuse(char *why, size_t whylen, const char *msg)
{
    if (why && whylen)
        snprintf(why, whylen, "%s", msg);
    return CFG_EINVALID;
}

int cfg_linux_kernel_read(const void *image, size_t len, struct cfg_linux_kernel *out,
                          char *why, size_t whylen)
{
    const uint8_t *p = image;
    char msg[160];
    if (!p || len < HDR_END) {
        snprintf(msg, sizeof msg, "not a Linux bzImage: %zu bytes, shorter than its setup "
                 "header (%u)", len, HDR_END);
        return refuse(why, whylen, msg);
    }
    if (memcmp(p + HDR_MAGIC, "HdrS", 4) != 0 || le(p + HDR_BOOT_FLAG, 2) != BOOT_FLAG)
        return refuse(why, whylen, "not a Linux bzImage: no \"HdrS\" at 0x202 or no boot flag "
                      "0xAA55 at 0x1fe");
    memset(out, 0, sizeof *out);
    out->protocol = (uint16_t)le(p + HDR_VERSION, 2);
    if (out->protocol < CFG_LINUX_MIN_PROTOCOL) {
        snprintf(msg, sizeof msg, "boot protocol %u.%02u, Tessera needs %u.%02u or later (the "
                 "64-bit entry)", out->protocol >> 8, out->protocol & 0xff,
                 CFG_LINUX_MIN_PROTOCOL >> 8, CFG_LINUX_MIN_PROTOCOL & 0xff);
        return refuse(why, whylen, msg);
    }
    out->setup_sects = p[HDR_SETUP_SECTS];
    unsigned sects = out->setup_sects ? out->setup_sects : SETUP_SECTS_DEFAULT;
    uint64_t setup_bytes = (uint64_t)(sects + 1) * SECTOR_BYTES;
    if (setup_bytes >= len) {
        snprintf(msg, sizeof msg, "truncated: %zu bytes, but its setup code alone takes %llu "
                 "(setup_sects %u)", len, (unsigned long long)setup_bytes, sects);
        return refuse(why, whylen, msg);
    }
    out->xloadflags = (uint16_t)le(p + HDR_XLOADFLAGS, 2);
    if (!(out->xloadflags & XLF_KERNEL_64))
        return refuse(why, whylen, "not a 64-bit kernel: xloadflags lacks XLF_KERNEL_64");
    out->initrd_addr_max = le(p + HDR_INITRD_ADDR_MAX, 4);
    out->kernel_alignment = le(p + HDR_KERNEL_ALIGNMENT, 4);
    out->cmdline_size = le(p + HDR_CMDLINE_SIZE, 4);
    out->pref_address = le(p + HDR_PREF_ADDRESS, 4) | (uint64_t)le(p + HDR_PREF_ADDRESS + 4, 4) << 32;
    out->init_size = le(p + HDR_INIT_SIZE, 4);
    if (out->init_size == 0)
        return refuse(why, whylen, "corrupt setup header: init_size is 0");
    if (out->kernel_alignment == 0 || (out->kernel_alignment & (out->kernel_alignment - 1)))
        return refuse(why, whylen, "corrupt setup header: kernel_alignment is not a power of two");
    return CFG_OK;
}
