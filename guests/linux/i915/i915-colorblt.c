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
 * pixels), 2 for bad arguments.  Built static against the uAPI header (no libdrm library);
 * command encodings come from Tessera's drivers/igpu/gen9_cmd.h. */
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

#include "drivers/igpu/gen9_cmd.h"

#define ME "i915-colorblt"
#define BPP 4u                          /* GEN9_BR13_DEPTH_32 */
#define BACKGROUND_TAG 0x5A000000u      /* background pixels: tag | y << 12 | x */
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
    fprintf(stderr, ME ": %s\nusage: " ME " [-d /dev/dri/renderD128] [-c 0xAARRGGBB] [-s WxH] "
            "[-t SECONDS] [-m wb|wc]\n", why);
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

/* The rectangle the blit fills: an eighth of the buffer in from each edge, so the pixels on
 * all four sides must stay as the CPU wrote them. */
struct rect { unsigned x1, y1, x2, y2; };       /* (x2, y2) exclusive, as BR23 */

static uint32_t background(unsigned x, unsigned y)
{
    return BACKGROUND_TAG | (y << 12) | x;
}

static int in_rect(const struct rect *r, unsigned x, unsigned y)
{
    return x >= r->x1 && x < r->x2 && y >= r->y1 && y < r->y2;
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
    struct drm_i915_gem_mmap_offset m = {
        .handle = handle, .flags = wc ? I915_MMAP_OFFSET_WC : I915_MMAP_OFFSET_WB };
    if (xioctl(fd, DRM_IOCTL_I915_GEM_MMAP_OFFSET, &m))
        return NULL;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)m.offset);
    return p == MAP_FAILED ? NULL : p;
}

static int set_domain(int fd, uint32_t handle, int wc, int write)
{
    uint32_t domain = wc ? I915_GEM_DOMAIN_WC : I915_GEM_DOMAIN_CPU;
    struct drm_i915_gem_set_domain d = {
        .handle = handle, .read_domains = domain, .write_domain = write ? domain : 0 };
    return xioctl(fd, DRM_IOCTL_I915_GEM_SET_DOMAIN, &d);
}

/* The batch: one XY_COLOR_BLT (PRM Vol 2a; dwords as named in gen9_cmd.h), then
 * MI_BATCH_BUFFER_END and an MI_NOOP so the length is a whole number of qwords (i915 refuses
 * a batch_len that is not 8-byte aligned). */
static unsigned build_batch(uint32_t *b, const struct rect *r, unsigned pitch, uint32_t colour)
{
    memset(b, 0, GEN9_XY_COLOR_BLT_LEN * sizeof(*b));
    b[0] = GEN9_XY_COLOR_BLT;
    b[GEN9_XY_COLOR_BLT_DW_BR13] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) | pitch;
    b[GEN9_XY_COLOR_BLT_DW_DST_TOPLEFT] = GEN9_BLT_COORD(r->x1, r->y1);
    b[GEN9_XY_COLOR_BLT_DW_DST_BOTRIGHT] = GEN9_BLT_COORD(r->x2, r->y2);
    b[GEN9_XY_COLOR_BLT_DW_DST_LO] = 0;         /* the relocation writes the address */
    b[GEN9_XY_COLOR_BLT_DW_DST_HI] = 0;
    b[GEN9_XY_COLOR_BLT_DW_COLOR] = colour;
    unsigned n = GEN9_XY_COLOR_BLT_LEN;
    b[n++] = GEN9_MI_BATCH_BUFFER_END;
    if (n % 2)
        b[n++] = GEN9_MI_NOOP;
    return n;
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
                    "`ls /dev/dri`)", o->device, strerror(errno));

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

    const unsigned w = o->width, h = o->height, pitch = w * BPP;
    const size_t size = ((size_t)pitch * h + 4095) & ~(size_t)4095;
    const struct rect r = { w / 8, h / 8, w - w / 8, h - h / 8 };
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
            px[y * w + x] = background(x, y);

    uint32_t cmds[GEN9_XY_COLOR_BLT_LEN + 2];
    unsigned ndw = build_batch(cmds, &r, pitch, o->colour);
    struct drm_i915_gem_pwrite pw = {
        .handle = batch, .offset = 0, .size = ndw * sizeof(uint32_t),
        .data_ptr = (uintptr_t)cmds };
    if (xioctl(fd, DRM_IOCTL_I915_GEM_PWRITE, &pw))
        return fail("DRM_IOCTL_I915_GEM_PWRITE of the batch: %s", strerror(errno));

    struct drm_i915_gem_relocation_entry reloc = {
        .target_handle = dst,
        .delta = 0,
        .offset = GEN9_XY_COLOR_BLT_DW_DST_LO * sizeof(uint32_t),
        .presumed_offset = 0,                   /* what the batch holds now */
        .read_domains = I915_GEM_DOMAIN_RENDER,
        .write_domain = I915_GEM_DOMAIN_RENDER,
    };
    struct drm_i915_gem_exec_object2 objs[2] = {
        { .handle = dst, .flags = EXEC_OBJECT_WRITE },
        { .handle = batch, .relocation_count = 1, .relocs_ptr = (uintptr_t)&reloc },
    };
    struct drm_i915_gem_execbuffer2 eb = {
        .buffers_ptr = (uintptr_t)objs,
        .buffer_count = 2,                      /* the batch is the last object */
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

    struct drm_i915_gem_wait wait = { .bo_handle = dst, .timeout_ns = (int64_t)(o->timeout_s * 1e9) };
    if (xioctl(fd, DRM_IOCTL_I915_GEM_WAIT, &wait))
        return fail("DRM_IOCTL_I915_GEM_WAIT: %s%s", strerror(errno),
                    errno == ETIME ? " (the blit did not complete in time)" : "");
    double elapsed = now_s() - t0;
    int status = 0;
    if (fence_status(fence, &status))
        return fail("SYNC_IOC_FILE_INFO on the out-fence: %s", strerror(errno));
    if (status < 0)
        return fail("the request completed with error %d (%s): the GPU or the kernel cancelled "
                    "it (dmesg)", status, strerror(-status));
    if (status == 0)
        return fail("the buffer is idle but the request's fence is not signalled");

    if (set_domain(fd, dst, o->wc, 0))
        return fail("DRM_IOCTL_I915_GEM_SET_DOMAIN (CPU read): %s", strerror(errno));
    unsigned long wrong_in = 0, wrong_out = 0, n_in = 0, n_out = 0;
    unsigned reported = 0;
    char report[MAX_REPORTED][96];
    for (unsigned y = 0; y < h; y++) {
        for (unsigned x = 0; x < w; x++) {
            int inside = in_rect(&r, x, y);
            uint32_t want = inside ? o->colour : background(x, y), got = px[y * w + x];
            inside ? n_in++ : n_out++;
            if (got == want)
                continue;
            inside ? wrong_in++ : wrong_out++;
            if (reported < MAX_REPORTED)
                snprintf(report[reported++], sizeof(report[0]),
                         "  (%u,%u) %s: 0x%08" PRIx32 ", want 0x%08" PRIx32, x, y,
                         inside ? "inside" : "outside", got, want);
        }
    }
    const char *map = o->wc ? "WC" : "WB";
    if (wrong_in || wrong_out) {
        printf(ME ": FAIL: XY_COLOR_BLT of 0x%08" PRIx32 " into (%u,%u)-(%u,%u) of a %ux%u buffer "
               "on 8086:%04x: %lu of %lu pixels inside are not the colour, %lu of %lu around it "
               "changed (%s mmap); first ones:\n", o->colour, r.x1, r.y1, r.x2, r.y2, w, h,
               devid, wrong_in, n_in, wrong_out, n_out, map);
        for (unsigned i = 0; i < reported; i++)
            puts(report[i]);
        return 1;
    }
    printf(ME ": pass: XY_COLOR_BLT on the blitter of 8086:%04x filled (%u,%u)-(%u,%u) of a "
           "%ux%u 32 bpp buffer with 0x%08" PRIx32 ": all %lu pixels right, the %lu around them "
           "untouched (%s mmap), %.1f ms from submit to idle\n", devid, r.x1, r.y1, r.x2, r.y2,
           w, h, o->colour, n_in, n_out, map, elapsed * 1e3);
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
