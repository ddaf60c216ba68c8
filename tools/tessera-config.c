/* tessera-config: the host side of the vendor configuration.  It runs the same checker the
 * hypervisor runs at boot (config/), so a configuration the build accepts is one the hypervisor
 * accepts.
 *
 *   tessera-config [-s SOURCE] check FILE      FILE is a DTB or a wrapped blob; prints the
 *                                              configuration or the error
 *   tessera-config [-s SOURCE] wrap FILE.dtb OUT.blob
 *                                              checks, then writes the blob for the image
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

#define MAX_FILE (16u << 20)

static const char *prog = "tessera-config";

static int usage(void)
{
    fprintf(stderr,
            "usage: %s [-s SOURCE] check FILE.dtb|FILE.blob\n"
            "       %s [-s SOURCE] wrap FILE.dtb OUT.blob\n",
            prog, prog);
    return 2;
}

/* Reads a whole file; returns NULL (message printed) on error. */
static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
        return NULL;
    }
    unsigned char *buf = malloc(MAX_FILE + 1);
    size_t n = buf ? fread(buf, 1, MAX_FILE + 1, f) : 0;
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad || n > MAX_FILE) {
        fprintf(stderr, "%s: %s: %s\n", prog, path,
                bad ? "read error" : "larger than 16 MiB, not a configuration");
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
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
    return usage();
}
