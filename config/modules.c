/* The module check (modules.h): each guest's configuration against the files it boots. */
#include <stdio.h>
#include <string.h>

#include "config/internal.h"
#include "config/modules.h"

#define MIB (1ull << 20)

/* bytes as MiB with one decimal: sizes and ends rounded up, room left rounded down, so a
 * message never makes a fit look closer than it is. */
static const char *mib_rounded(uint64_t bytes, bool up, char buf[24])
{
    uint64_t tenths = (bytes * 10 + (up ? MIB - 1 : 0)) / MIB;
    snprintf(buf, 24, "%llu.%llu", (unsigned long long)(tenths / 10),
             (unsigned long long)(tenths % 10));
    return buf;
}
static const char *mib(uint64_t bytes, char buf[24])
{
    return mib_rounded(bytes, true, buf);
}

static int fail(char *err, size_t errlen, const char *path, const char *prop, const char *what)
{
    if (err && errlen)
        snprintf(err, errlen, "%s: %s: %s", path, prop, what);
    return CFG_EINVALID;
}

static const struct cfg_module *find(const struct cfg_module *mods, unsigned n, const char *tag)
{
    for (unsigned i = 0; i < n; i++)
        if (mods[i].tag && strcmp(mods[i].tag, tag) == 0)
            return &mods[i];
    return NULL;
}

static bool is_bzimage(const struct cfg_module *m)
{
    return m->len >= BZ_HEADER + 4 && memcmp((const char *)m->data + BZ_HEADER, "HdrS", 4) == 0;
}

/* A Tessera guest's image is loaded as ELF64 (vmm/loader/guest_load.c does the full check). */
static int check_tessera(const struct cfg_guest *g, const char *path, const struct cfg_module *m,
                         char *err, size_t errlen)
{
    char what[200];
    static const unsigned char elf64[5] = { 0x7f, 'E', 'L', 'F', 2 }; /* magic, ELFCLASS64 */
    if (m->len >= sizeof elf64 && memcmp(m->data, elf64, sizeof elf64) == 0)
        return CFG_OK;
    snprintf(what, sizeof what, "'%s' is %s", g->image,
             is_bzimage(m) ? "a Linux bzImage: set kernel = \"linux\" to boot it"
                           : "not an ELF64 image (a Tessera guest, docs/guest-abi.md)");
    return fail(err, errlen, path, "image", what);
}

/* The property a vendor changes when linux_place refuses. */
static const char *place_property(int rc)
{
    switch (rc) {
    case LINUX_PLACE_EINITRD:
        return "initrd";
    case LINUX_PLACE_ECMDLINE:
        return "cmdline";
    case LINUX_PLACE_ELOAD:
        return "image";
    default:
        return "ram-mib";
    }
}

/* The hypervisor's loader decides (linux_load.c runs the same two calls at boot). */
static int check_linux(const struct cfg_guest *g, const char *path, const struct cfg_module *m,
                       const struct cfg_module *mods, unsigned n_mods, struct cfg_linux_fit *f,
                       char *err, size_t errlen)
{
    char what[400], why[240];
    memset(f, 0, sizeof *f);
    if (bzimage_parse(m->data, m->len, &f->kernel, why, sizeof why) != BZ_OK) {
        snprintf(what, sizeof what, "'%s': not a Linux bzImage Tessera can boot: %s", g->image,
                 why);
        return fail(err, errlen, path, "image", what);
    }
    f->ram_bytes = (uint64_t)g->ram_mib * MIB;
    if (g->initrd[0]) {
        const struct cfg_module *r = find(mods, n_mods, g->initrd);
        if (!r) {
            snprintf(what, sizeof what, "no module tagged '%s' (the guest's initramfs)", g->initrd);
            return fail(err, errlen, path, "initrd", what);
        }
        if (r->len == 0) {
            snprintf(what, sizeof what, "module '%s' is empty", g->initrd);
            return fail(err, errlen, path, "initrd", what);
        }
        f->initrd_bytes = r->len;
    }
    int rc = linux_place(&f->kernel, f->ram_bytes, f->initrd_bytes, strlen(g->cmdline), &f->place,
                         why, sizeof why);
    if (rc != LINUX_PLACE_OK) {
        if (rc == LINUX_PLACE_EINITRD)
            snprintf(what, sizeof what, "'%s' beside kernel '%s' in %u MiB: %s", g->initrd,
                     g->image, g->ram_mib, why);
        else
            snprintf(what, sizeof what, "kernel '%s': %s", g->image, why);
        return fail(err, errlen, path, place_property(rc), what);
    }
    return CFG_OK;
}

int cfg_check_guest_modules(const struct cfg *c, unsigned id, const struct cfg_module *mods,
                            unsigned n_mods, struct cfg_linux_fit *fit, char *err, size_t errlen)
{
    char path[CFG_PATH_MAX], what[200];
    struct cfg_linux_fit local;
    if (!c || id >= c->n_guests || id >= TESSERA_MAX_GUESTS)
        return cfg_fail_raw(err, errlen, CFG_EINVALID, "module check: no such guest");
    const struct cfg_guest *g = &c->guest[id];
    cfg_guest_path(c, id, path);
    const struct cfg_module *m = find(mods, n_mods, g->image);
    if (!m) {
        snprintf(what, sizeof what, "no module tagged '%s' (the guest's %s)", g->image,
                 g->kind == CFG_GUEST_LINUX ? "Linux kernel" : "ELF image");
        return fail(err, errlen, path, "image", what);
    }
    if (g->kind == CFG_GUEST_LINUX)
        return check_linux(g, path, m, mods, n_mods, fit ? fit : &local, err, errlen);
    return check_tessera(g, path, m, err, errlen);
}

int cfg_check_modules(const struct cfg *c, const struct cfg_module *mods, unsigned n_mods,
                      char *err, size_t errlen)
{
    for (unsigned i = 0; i < c->n_guests && i < TESSERA_MAX_GUESTS; i++) {
        int rc = cfg_check_guest_modules(c, i, mods, n_mods, NULL, err, errlen);
        if (rc != CFG_OK)
            return rc;
    }
    return CFG_OK;
}

int cfg_linux_fit_summary(const struct cfg *c, unsigned id, const struct cfg_linux_fit *f,
                          char *buf, size_t len)
{
    char a[24], b[24], d[24], e[24];
    if (!c || id >= c->n_guests || id >= TESSERA_MAX_GUESTS)
        return snprintf(buf, len, "guest %u: no such guest", id);
    const struct cfg_guest *g = &c->guest[id];
    char initrd[CFG_IMAGE_MAX + 80] = ", no initrd";
    if (g->initrd[0])
        snprintf(initrd, sizeof initrd, ", initrd %s %s MiB at %s..%s MiB", g->initrd,
                 mib(f->initrd_bytes, a), mib_rounded(f->place.initrd_gpa, false, b),
                 mib(f->place.initrd_gpa + f->initrd_bytes, d));
    return snprintf(buf, len, "%s: kernel %s (boot protocol %u.%02u) at %s..%s MiB%s, RAM %u MiB",
                    g->name, g->image, (unsigned)f->kernel.version >> 8, f->kernel.version & 0xffu,
                    mib_rounded(f->place.load_gpa, false, e), mib(f->place.kernel_end_gpa, a),
                    initrd, g->ram_mib);
}
