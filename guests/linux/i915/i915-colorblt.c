/* i915-colorblt: the i915 guest's own check of the uAPI path, from a user program to the
 * blitter and back (docs/linux-image.md, "The i915 guest").
 *
 *   i915-colorblt [-d /dev/dri/renderD128] [-c 0xAARRGGBB] [-s WxH] [-t SECONDS] [-m wb|wc]
 *
 * It opens the render node, checks that i915 drives it, creates a linear 32 bpp buffer object,
 * paints a background pattern into it through a CPU mapping, then submits one batch to the
 * blitter (I915_EXEC_BLT) with DRM_IOCTL_I915_GEM_EXECBUFFER2(_WR): an XY_COLOR_BLT filling a
 * rectangle inside the buffer with the colour, its destination address patched by the kernel
 * (a relocation: i915 6.1 takes them on Gen9).  It waits with DRM_IOCTL_I915_GEM_WAIT, asks the
 * request's out-fence whether it completed without error, reads the buffer back through a CPU
 * mapping (DRM_IOCTL_I915_GEM_MMAP_OFFSET, write-back by default) and checks every pixel: the
 * rectangle must hold the colour and the pixels around it the background.
 *
 * Prints one summary line, plus up to 8 wrong pixels, and exits 0 only if every pixel is right;
 * 1 for any failure (no render node, not i915, an ioctl refused, timeout, request error, wrong
 * pixels), 2 for bad arguments.  Built static against the uAPI header (no libdrm library).
 * The batch and the pixel check are colorblt.h's (command encodings from Tessera's
 * drivers/igpu/gen9_cmd.h), which tests/unit/test_igpu_colorblt.c runs on the Gen9 model. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <libdrm/i915_drm.h>
#include <linux/sync_file.h>

#include "guests/linux/i915/colorblt.h"

#define ME           "i915-colorblt"
#define MAX_REPORTED 8

struct opts {
    const char *device;
    uint32_t colour;
    unsigned width, height;
    double timeout_s;
    int wc;
};

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(ME ": FAIL: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    return 1;
}

static int xioctl(int fd, unsigned long req, void *arg)
{
    int r;
    do {
        r = ioctl(fd, req, arg);
    } while (r == -1 && (errno == EINTR || errno == EAGAIN));
    return r;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int usage(const char *why)
{
    fprintf(stderr,
            ME ": %s\nusage: " ME " [-d /dev/dri/renderD128] [-c 0xAARRGGBB] [-s WxH] "
               "[-t SECONDS] [-m wb|wc]\n",
            why);
    return 2;
}

static int parse(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){ "/dev/dri/renderD128", 0xFF336699u, 256, 128, 60.0, 0 };
    int c;
    char *end;
    while ((c = getopt(argc, argv, "d:c:s:t:m:")) != -1) {
        switch (c) {
        case 'd':
            o->device = optarg;
            break;
        case 'c': {
            unsigned long v = strtoul(optarg, &end, 0);
            if (*end || v > 0xFFFFFFFFul)
                return usage("-c: expected a 32-bit colour such as 0xFF336699");
            o->colour = (uint32_t)v;
            break;
        }
        case 's':
            /* 16..4096 pixels each way: BR13's pitch is a signed 16-bit byte count. */
            if (sscanf(optarg, "%ux%u", &o->width, &o->height) != 2 || o->width < 16 ||
                o->width > 4096 || o->height < 16 || o->height > 4096)
                return usage("-s: expected WxH, each 16..4096");
            break;
        case 't':
            o->timeout_s = strtod(optarg, &end);
            if (*end || !(o->timeout_s > 0))
                return usage("-t: expected a positive number of seconds");
            break;
        case 'm':
            if (strcmp(optarg, "wb") && strcmp(optarg, "wc"))
                return usage("-m: expected wb or wc");
            o->wc = !strcmp(optarg, "wc");
            break;
        default:
            return usage("unknown option");
        }
    }
    if (optind != argc)
        return usage("unexpected argument");
    return 0;
}

static int gem_create(int fd, uint64_t size, uint32_t *handle)
{
    struct drm_i915_gem_create c = { .size = size };
    if (xioctl(fd, DRM_IOCTL_I915_GEM_CREATE, &c))
        return -1;
    *handle = c.handle;
    return 0;
}

/* A CPU mapping of a whole object (DRM_IOCTL_I915_GEM_MMAP_OFFSET, then mmap at that offset). */
static void *gem_map(int fd, uint32_t handle, size_t size, int wc)
{
    struct drm_i915_gem_mmap_offset m = { .handle = handle,
                                          .flags = wc ? I915_MMAP_OFFSET_WC : I915_MMAP_OFFSET_WB };
    if (xioctl(fd, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &m))
        return NULL;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)m.offset);
    return p == MAP_FAILED ? NULL : p;
}

static int set_domain(int fd, uint32_t handle, int wc, int write)
{
    uint32_t domain = wc ? I915_GEM_DOMAIN_WC : I915_GEM_DOMAIN_CPU;
    struct drm_i915_gem_set_domain d = { .handle = handle,
                                         .read_domains = domain,
                                         .write_domain = write ? domain : 0 };
    return xioctl(fd, DRM_IOCTL_I915_GEM_SET_DOMAIN, &d);
}

/* Up to MAX_REPORTED wrong pixels, for the failure report. */
struct report {
    unsigned n;
    char line[MAX_REPORTED][96];
};

static void report_pixel(void *ctx, unsigned x, unsigned y, int inside, uint32_t got, uint32_t want)
{
    struct report *rep = ctx;
    if (rep->n < MAX_REPORTED)
        snprintf(rep->line[rep->n++], sizeof(rep->line[0]),
                 "  (%u,%u) %s: 0x%08" PRIx32 ", want 0x%08" PRIx32, x, y,
                 inside ? "inside" : "outside", got, want);
}

/* Where the out-fence stands: 1 signalled, 0 still active, < 0 the request's error. */
static int fence_status(int fence, int *status)
{
    struct sync_file_info info;
    memset(&info, 0, sizeof(info));
    if (xioctl(fence, SYNC_IOC_FILE_INFO, &info))
        return -1;
    *status = info.status;
    return 0;
}

static int run(const struct opts *o)
{
    int fd = open(o->device, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return fail("%s: %s (no render node: is i915 bound to a GPU? `dmesg | grep i915`, "
                    "`ls /dev/dri`)",
                    o->device, strerror(errno));

    char name[32] = "";
    struct drm_version v = { .name = name, .name_len = sizeof(name) - 1 };
    if (xioctl(fd, DRM_IOCTL_VERSION, &v))
        return fail("%s: DRM_IOCTL_VERSION: %s (not a DRM device?)", o->device, strerror(errno));
    if (strcmp(name, "i915"))
        return fail("%s is driven by '%s', not i915", o->device, name);
    int devid = 0;
    struct drm_i915_getparam gp = { .param = I915_PARAM_CHIPSET_ID, .value = &devid };
    if (xioctl(fd, DRM_IOCTL_I915_GETPARAM, &gp))
        return fail("I915_PARAM_CHIPSET_ID: %s", strerror(errno));

    const unsigned w = o->width, h = o->height, pitch = w * COLORBLT_BPP;
    const size_t size = ((size_t)pitch * h + 4095) & ~(size_t)4095;
    const struct colorblt_rect r = colorblt_rect_for(w, h);
    uint32_t dst, batch;
    if (gem_create(fd, size, &dst) || gem_create(fd, 4096, &batch))
        return fail("DRM_IOCTL_I915_GEM_CREATE: %s", strerror(errno));

    /* The background, written by the CPU in the CPU (or WC) domain. */
    uint32_t *px = gem_map(fd, dst, size, o->wc);
    if (!px)
        return fail("DRM_IOCTL_I915_GEM_MMAP_OFFSET (%s) + mmap: %s", o->wc ? "WC" : "WB",
                    strerror(errno));
    if (set_domain(fd, dst, o->wc, 1))
        return fail("DRM_IOCTL_I915_GEM_SET_DOMAIN (CPU write): %s", strerror(errno));
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++)
            px[y * w + x] = colorblt_background(x, y);

    uint32_t cmds[COLORBLT_BATCH_DWORDS];
    /* The destination address is the relocation's to write (presumed_offset 0 below). */
    unsigned ndw = colorblt_batch(cmds, &r, pitch, o->colour, 0);
    struct drm_i915_gem_pwrite pw = { .handle = batch,
                                      .offset = 0,
                                      .size = ndw * sizeof(uint32_t),
                                      .data_ptr = (uintptr_t)cmds };
    if (xioctl(fd, DRM_IOCTL_I915_GEM_PWRITE, &pw))
        return fail("DRM_IOCTL_I915_GEM_PWRITE of the batch: %s", strerror(errno));

    struct drm_i915_gem_relocation_entry reloc = {
        .target_handle = dst,
        .delta = 0,
        .offset = COLORBLT_RELOC_OFFSET,
        .presumed_offset = 0, /* what the batch holds now */
        .read_domains = I915_GEM_DOMAIN_RENDER,
        .write_domain = I915_GEM_DOMAIN_RENDER,
    };
    struct drm_i915_gem_exec_object2 objs[2] = {
        { .handle = dst, .flags = EXEC_OBJECT_WRITE },
        { .handle = batch, .relocation_count = 1, .relocs_ptr = (uintptr_t)&reloc },
    };
    struct drm_i915_gem_execbuffer2 eb = {
        .buffers_ptr = (uintptr_t)objs,
        .buffer_count = 2, /* the batch is the last object */
        .batch_len = ndw * sizeof(uint32_t),
        .flags = I915_EXEC_BLT | I915_EXEC_FENCE_OUT,
    };
    double t0 = now_s();
    /* EXECBUFFER2_WR is EXECBUFFER2 with the argument copied back: rsvd2 returns the
     * out-fence. */
    if (xioctl(fd, DRM_IOCTL_I915_GEM_EXECBUFFER2_WR, &eb))
        return fail("DRM_IOCTL_I915_GEM_EXECBUFFER2 on the blitter: %s%s", strerror(errno),
                    errno == EINVAL ? " (no blitter engine, or the batch was refused: dmesg)" : "");
    int fence = (int)(eb.rsvd2 >> 32);

    struct drm_i915_gem_wait wait = { .bo_handle = dst,
                                      .timeout_ns = (int64_t)(o->timeout_s * 1e9) };
    if (xioctl(fd, DRM_IOCTL_I915_GEM_WAIT, &wait))
        return fail("DRM_IOCTL_I915_GEM_WAIT: %s%s", strerror(errno),
                    errno == ETIME ? " (the blit did not complete in time)" : "");
    double elapsed = now_s() - t0;
    int status = 0;
    if (fence_status(fence, &status))
        return fail("SYNC_IOC_FILE_INFO on the out-fence: %s", strerror(errno));
    if (status < 0)
        return fail("the request completed with error %d (%s): the GPU or the kernel cancelled "
                    "it (dmesg)",
                    status, strerror(-status));
    if (status == 0)
        return fail("the buffer is idle but the request's fence is not signalled");

    if (set_domain(fd, dst, o->wc, 0))
        return fail("DRM_IOCTL_I915_GEM_SET_DOMAIN (CPU read): %s", strerror(errno));
    struct report rep = { .n = 0 };
    struct colorblt_result res = colorblt_check(px, w, h, &r, o->colour, report_pixel, &rep);
    const char *map = o->wc ? "WC" : "WB";
    if (res.wrong_inside || res.wrong_outside) {
        printf(ME ": FAIL: XY_COLOR_BLT of 0x%08" PRIx32 " into (%u,%u)-(%u,%u) of a %ux%u buffer "
                  "on 8086:%04x: %lu of %lu pixels inside are not the colour, %lu of %lu around it "
                  "changed (%s mmap); first ones:\n",
               o->colour, r.x1, r.y1, r.x2, r.y2, w, h, devid, res.wrong_inside, res.inside,
               res.wrong_outside, res.outside, map);
        for (unsigned i = 0; i < rep.n; i++)
            puts(rep.line[i]);
        return 1;
    }
    printf(ME ": pass: XY_COLOR_BLT on the blitter of 8086:%04x filled (%u,%u)-(%u,%u) of a "
              "%ux%u 32 bpp buffer with 0x%08" PRIx32 ": all %lu pixels right, the %lu around them "
              "untouched (%s mmap), %.1f ms from submit to idle\n",
           devid, r.x1, r.y1, r.x2, r.y2, w, h, o->colour, res.inside, res.outside, map,
           elapsed * 1e3);
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o;
    int r = parse(argc, argv, &o);
    if (r)
        return r;
    r = run(&o);
    fflush(stdout);
    return r;
}
