/* tessera-config: the host side of the vendor configuration.  It runs the same checker the
 * hypervisor runs at boot (config/), so a configuration the build accepts is one the hypervisor
 * accepts.
 *
 *   tessera-config [-s SOURCE] check FILE      FILE is a DTB or a wrapped blob; prints the
 *                                              configuration or the error
 *   tessera-config [-s SOURCE] wrap FILE.dtb OUT.blob
 *                                              checks, then writes the blob for the image
 *   tessera-config modules FILE                lists the boot modules the configuration names,
 *                                              one "TAG ROLE" line each (ROLE: elf,
 *                                              linux-kernel, linux-initrd), for the build
 *   tessera-config [-s SOURCE] check-modules FILE TAG=PATH...
 *                                              checks each guest against the module files the
 *                                              image will carry (config/modules.h): missing
 *                                              modules, Linux kernel and initrd fit
 *
 * -s names the source file the DTB came from, so errors read "configs/x.dts: /guests/...".
 * Exit status: 0 accepted, 1 rejected, 2 usage or file error.  See docs/config.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/blob.h"
#include "config/config.h"
#include "config/modules.h"

#define MAX_FILE        (16u << 20)
#define MAX_MODULE_FILE (1024u << 20) /* a kernel or initramfs: far below this */

static const char *prog = "tessera-config";

static int usage(void)
{
    fprintf(stderr,
            "usage: %s [-s SOURCE] check FILE.dtb|FILE.blob\n"
            "       %s [-s SOURCE] wrap FILE.dtb OUT.blob\n"
            "       %s modules FILE.dtb|FILE.blob\n"
            "       %s [-s SOURCE] check-modules FILE.dtb|FILE.blob TAG=PATH...\n",
            prog, prog, prog, prog);
    return 2;
}

/* Reads a whole file of at most max bytes; returns NULL (message printed) on error. */
static unsigned char *read_file_max(const char *path, size_t *len, size_t max, const char *what)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
        return NULL;
    }
    unsigned char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad || n > max) {
        fprintf(stderr, "%s: %s: %s (%zu MiB), not %s\n", prog, path,
                bad ? "read error" : "too large", max >> 20, what);
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

static unsigned char *read_file(const char *path, size_t *len)
{
    return read_file_max(path, len, MAX_FILE, "a configuration");
}

static void print_line(void *ctx, const char *line)
{
    fprintf((FILE *)ctx, "%s\n", line);
}

static int is_blob(const unsigned char *buf, size_t len)
{
    return len >= 4 && memcmp(buf, CFG_BLOB_MAGIC, 4) == 0;
}

static int report(const char *source, const char *file, int rc, const char *err)
{
    if (rc == CFG_OK)
        return 0;
    fprintf(stderr, "%s: error: %s\n", source ? source : file, err);
    return rc == CFG_ENOMEM ? 2 : 1;
}

static int cmd_check(const char *source, const char *file)
{
    static struct cfg cfg;
    char err[512];
    size_t len;
    unsigned char *buf = read_file(file, &len);
    if (!buf)
        return 2;
    int rc = is_blob(buf, len) ? cfg_blob_load(buf, len, &cfg, err, sizeof err)
                               : cfg_check_dtb(buf, len, &cfg, err, sizeof err);
    free(buf);
    if (rc == CFG_OK)
        cfg_format(&cfg, source ? source : file, print_line, stdout);
    return report(source, file, rc, err);
}

/* Loads a DTB or blob into cfg; prints the error and returns the exit status if it fails. */
static int load_config(const char *source, const char *file, struct cfg *cfg)
{
    char err[512];
    size_t len;
    unsigned char *buf = read_file(file, &len);
    if (!buf)
        return 2;
    int rc = is_blob(buf, len) ? cfg_blob_load(buf, len, cfg, err, sizeof err)
                               : cfg_check_dtb(buf, len, cfg, err, sizeof err);
    free(buf);
    return report(source, file, rc, err);
}

/* The modules the build must put in the image, each tag once, in guest order. */
static int cmd_modules(const char *file)
{
    static struct cfg cfg;
    int st = load_config(NULL, file, &cfg);
    if (st)
        return st;
    const char *listed[2 * TESSERA_MAX_GUESTS];
    unsigned n = 0;
    for (unsigned i = 0; i < cfg.n_guests; i++) {
        const struct cfg_guest *g = &cfg.guest[i];
        const bool is_linux = g->kind == CFG_GUEST_LINUX;
        const char *tags[2] = { g->image, is_linux && g->initrd[0] ? g->initrd : NULL };
        const char *roles[2] = { is_linux ? "linux-kernel" : "elf", "linux-initrd" };
        for (unsigned k = 0; k < 2 && tags[k]; k++) {
            unsigned j = 0;
            while (j < n && strcmp(listed[j], tags[k]) != 0)
                j++;
            if (j < n)
                continue;
            listed[n++] = tags[k];
            printf("%s %s\n", tags[k], roles[k]);
        }
    }
    return 0;
}

static int cmd_check_modules(const char *source, const char *file, int n_args, char **args)
{
    static struct cfg cfg;
    static struct cfg_module mods[2 * TESSERA_MAX_GUESTS];
    static unsigned char *data[2 * TESSERA_MAX_GUESTS];
    char err[512], line[400];
    int st = load_config(source, file, &cfg);
    if (st)
        return st;
    if (n_args > (int)(sizeof mods / sizeof mods[0])) {
        fprintf(stderr, "%s: at most %zu modules\n", prog, sizeof mods / sizeof mods[0]);
        return 2;
    }
    unsigned n = 0;
    for (int i = 0; i < n_args && st == 0; i++) {
        char *eq = strchr(args[i], '=');
        if (!eq || eq == args[i] || !eq[1]) {
            fprintf(stderr, "%s: %s: expected TAG=PATH\n", prog, args[i]);
            st = 2;
            break;
        }
        *eq = '\0';
        size_t len;
        data[n] = read_file_max(eq + 1, &len, MAX_MODULE_FILE, "a boot module");
        if (!data[n]) {
            st = 2;
            break;
        }
        mods[n] = (struct cfg_module){ .tag = args[i], .data = data[n], .len = len };
        n++;
    }
    if (st == 0) {
        int rc = cfg_check_modules(&cfg, mods, n, err, sizeof err);
        st = report(source, file, rc, err);
    }
    for (unsigned i = 0; st == 0 && i < cfg.n_guests; i++) {
        struct cfg_linux_fit fit;
        if (cfg.guest[i].kind != CFG_GUEST_LINUX)
            continue;
        cfg_check_guest_modules(&cfg, i, mods, n, &fit, err, sizeof err);
        cfg_linux_fit_summary(&cfg, i, &fit, line, sizeof line);
        printf("%s: %s\n", prog, line);
    }
    if (st == 0)
        printf("%s: %u guests' modules checked (%u files)\n", prog, cfg.n_guests, n);
    for (unsigned i = 0; i < n; i++)
        free(data[i]);
    return st;
}

static int cmd_wrap(const char *source, const char *in, const char *out)
{
    static struct cfg cfg;
    char err[512], tmp[4096];
    size_t len;
    unsigned char *dtb = read_file(in, &len);
    if (!dtb)
        return 2;
    int rc = cfg_check_dtb(dtb, len, &cfg, err, sizeof err);
    if (rc != CFG_OK) {
        free(dtb);
        return report(source, in, rc, err);
    }
    /* The blob carries exactly the DTB's totalsize bytes (dtc writes no padding, but be exact). */
    len = cfg.dtb_bytes;
    size_t blen = cfg_blob_size(len);
    unsigned char *blob = malloc(blen);
    if (!blob) {
        free(dtb);
        fprintf(stderr, "%s: out of memory\n", prog);
        return 2;
    }
    rc = cfg_blob_wrap(dtb, len, blob, blen, err, sizeof err);
    free(dtb);
    if (rc < 0) {
        free(blob);
        return report(source, in, rc, err);
    }
    /* Write beside the target and rename, so a failed run never leaves a partial blob. */
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    FILE *f = fopen(tmp, "wb");
    int ok = f && fwrite(blob, 1, blen, f) == blen;
    ok = (f && fclose(f) == 0) && ok;
    free(blob);
    if (!ok || rename(tmp, out) != 0) {
        fprintf(stderr, "%s: %s: %s\n", prog, out, strerror(errno));
        unlink(tmp);
        return 2;
    }
    printf("%s: %s: %u guests, %zu bytes (DTB CRC-32 0x%08x)\n", prog, out, cfg.n_guests, blen,
           cfg.dtb_crc32);
    return 0;
}

int main(int argc, char **argv)
{
    const char *source = NULL;
    int i = 1;
    if (i + 1 < argc && strcmp(argv[i], "-s") == 0) {
        source = argv[i + 1];
        i += 2;
    }
    if (i < argc && strcmp(argv[i], "check") == 0 && argc - i == 2)
        return cmd_check(source, argv[i + 1]);
    if (i < argc && strcmp(argv[i], "wrap") == 0 && argc - i == 3)
        return cmd_wrap(source, argv[i + 1], argv[i + 2]);
    if (i < argc && strcmp(argv[i], "modules") == 0 && argc - i == 2)
        return cmd_modules(argv[i + 1]);
    if (i < argc && strcmp(argv[i], "check-modules") == 0 && argc - i >= 2)
        return cmd_check_modules(source, argv[i + 1], argc - i - 2, argv + i + 2);
    return usage();
}
