/* libFuzzer target for the module check (config/modules.h), which reads a kernel's setup header
 * from a boot module: at boot that module is whatever GRUB was given.  No input may crash or
 * read out of bounds, and an accepted kernel and initrd must fit the guest as promised.
 *
 * The input is the kernel module; its first bytes also choose the guest's RAM, the command
 * line's length and the initrd's size, so the fit arithmetic is explored along with the header.
 * Seeds: tests/fuzz/seeds/fuzz_config_modules/ (a header like Debian's 6.1 kernel). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/modules.h"
#include "boot/linux/linux_layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond)
{
    if (!cond)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct cfg c;
    static uint8_t initrd[1];
    char err[256], line[300];
    if (size < 8)
        return 0;
    memset(&c, 0, sizeof c);
    c.n_guests = 1;
    struct cfg_guest *g = &c.guest[0];
    strcpy(g->name, "linux");
    strcpy(g->image, "kernel");
    strcpy(g->initrd, "initrd");
    g->kind = CFG_GUEST_LINUX;
    g->ram_mib = CFG_LINUX_RAM_MIN_MIB + (uint32_t)(data[0] | data[1] << 8) % 4096;
    size_t cmdline = (size_t)(data[2] | data[3] << 8) % CFG_CMDLINE_MAX;
    memset(g->cmdline, 'x', cmdline);
    /* The initrd's size is only its length: its bytes are never read. */
    size_t initrd_len = (size_t)(data[4] | data[5] << 8 | data[6] << 16 | (size_t)data[7] << 24);
    struct cfg_module mods[2] = {
        { "kernel", data, size },
        { "initrd", initrd, initrd_len },
    };
    struct cfg_linux_fit fit;
    memset(err, 'x', sizeof err);
    int rc = cfg_check_guest_modules(&c, 0, mods, 2, &fit, err, sizeof err);
    expect(rc == CFG_OK || rc == CFG_EINVALID);
    if (rc != CFG_OK) {
        expect(memchr(err, '\0', sizeof err) && err[0] == '/');
        return 0;
    }
    /* What the loader promised: the kernel from its load address for init_size inside RAM,
     * the initrd page-aligned above it and inside RAM, the command line within cmdline_size. */
    expect(fit.kernel.version >= BZ_PROTOCOL_MIN);
    expect(fit.place.load_gpa >= LINUX_KERNEL_MIN_GPA);
    expect(fit.place.kernel_end_gpa == fit.place.load_gpa + fit.kernel.init_size);
    expect(fit.place.kernel_end_gpa <= fit.ram_bytes);
    expect(fit.ram_bytes == (uint64_t)g->ram_mib << 20);
    expect(fit.initrd_bytes == initrd_len);
    if (initrd_len) {
        expect(fit.place.initrd_gpa % LINUX_PAGE_BYTES == 0 &&
               fit.place.initrd_gpa >= fit.place.kernel_end_gpa);
        expect(fit.place.initrd_gpa + initrd_len <= fit.ram_bytes);
    }
    expect(cmdline <= fit.kernel.cmdline_size);
    expect(cfg_linux_fit_summary(&c, 0, &fit, line, sizeof line) > 0);
    return 0;
}
