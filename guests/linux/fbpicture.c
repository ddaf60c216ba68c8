/* fbpicture: shows a PPM picture on a Linux framebuffer, for the Linux kiosk guest's initramfs.
 *
 *   fbpicture PICTURE.ppm [/dev/fbN]
 *
 * Debian's busybox-static has no fbsplash, so the initramfs carries this instead: a static
 * x86-64 Linux program with no C library (raw system calls), a few KiB.  It reads a binary PPM
 * (P6, maxval 255), asks the framebuffer for its mode (FBIOGET_VSCREENINFO/FSCREENINFO,
 * linux/fb.h), converts each pixel to the framebuffer's packed true-colour format (16, 24 or
 * 32 bits per pixel, any channel offsets) and draws the picture centred on the visible screen,
 * the rest filled with the picture's top-left colour.  It prints one line and exits:
 *   "picture 512x384 on /dev/fb0 (VESA VGA 1024x768, 32 bpp)"   exit 0
 *   "no picture: /dev/fb0: no such file or directory"           exit 1
 * /init puts that line into its banner. */
#include <asm/unistd.h>
#include <linux/errno.h>
#include <linux/fb.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/mman.h>

typedef unsigned long size_t;
typedef unsigned char u8;

/* ---- system calls (x86-64: number in rax, arguments in rdi rsi rdx r10 r8 r9) ------------- */
static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
    register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}
#define sys3(n, a, b, c) sys6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)

/* gcc may call these for struct copies and zeroing even in freestanding code. */
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n)
{
    u8 *p = d;
    while (n--)
        *p++ = (u8)c;
    return d;
}
void *memcpy(void *d, const void *s, size_t n)
{
    u8 *p = d;
    const u8 *q = s;
    while (n--)
        *p++ = *q++;
    return d;
}

/* ---- one output line ------------------------------------------------------------------------ */
static char out[200];
static size_t out_len;

static void put(const char *s)
{
    while (*s && out_len < sizeof out - 2)
        out[out_len++] = *s++;
}
static void put_num(unsigned long v)
{
    char b[24];
    int n = 0;
    do
        b[n++] = (char)('0' + v % 10);
    while ((v /= 10) && n < 24);
    while (n && out_len < sizeof out - 2)
        out[out_len++] = b[--n];
}
static __attribute__((noreturn)) void finish(int status)
{
    out[out_len++] = '\n';
    sys3(__NR_write, 1, out, out_len);
    sys6(__NR_exit_group, status, 0, 0, 0, 0, 0);
    for (;;)
        ;
}
static const char *errno_text(long e)
{
    switch (-e) {
    case ENOENT:
        return "no such file or directory";
    case ENODEV:
        return "no such device";
    case ENXIO:
        return "no such device or address";
    case EACCES:
        return "permission denied";
    case EINVAL:
        return "invalid argument";
    case ENOMEM:
        return "out of memory";
    case ENOTTY:
        return "not a framebuffer";
    default:
        return "system call failed";
    }
}
static __attribute__((noreturn)) void fail(const char *what, const char *why)
{
    out_len = 0;
    put("no picture: ");
    put(what);
    put(": ");
    put(why);
    finish(1);
}

/* ---- the picture ------------------------------------------------------------------------------ */
struct picture {
    unsigned long width, height;
    const u8 *rgb; /* width * height * 3 bytes, rows top to bottom */
};

/* Skips whitespace and # comments, then reads a decimal number; 0 on malformed input. */
static unsigned long ppm_number(const u8 **p, const u8 *end)
{
    while (*p < end && (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r' || **p == '#')) {
        if (**p == '#')
            while (*p < end && **p != '\n')
                (*p)++;
        else
            (*p)++;
    }
    unsigned long v = 0;
    int digits = 0;
    while (*p < end && **p >= '0' && **p <= '9' && digits < 7) {
        v = v * 10 + (unsigned long)(**p - '0');
        (*p)++;
        digits++;
    }
    return digits ? v : 0;
}

static void load_picture(const char *path, struct picture *pic)
{
    long fd = sys3(__NR_open, path, O_RDONLY, 0);
    if (fd < 0)
        fail(path, errno_text(fd));
    long size = sys3(__NR_lseek, fd, 0, SEEK_END);
    if (size <= 0)
        fail(path, "empty or unreadable");
    long map = sys6(__NR_mmap, 0, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map < 0 && map > -4096)
        fail(path, errno_text(map));
    sys3(__NR_close, fd, 0, 0);
    /* cppcheck-suppress nullPointerArithmeticRedundantCheck ; mmap never gives 0 here */
    const u8 *p = (const u8 *)map, *end = p + size;
    if (size < 2 || p[0] != 'P' || p[1] != '6')
        fail(path, "not a binary PPM (P6)");
    p += 2;
    pic->width = ppm_number(&p, end);
    pic->height = ppm_number(&p, end);
    unsigned long maxval = ppm_number(&p, end);
    if (!pic->width || !pic->height || maxval != 255 || p >= end)
        fail(path, "PPM header: expected width, height and maxval 255");
    p++; /* the single whitespace byte before the pixels */
    if ((unsigned long)(end - p) < pic->width * pic->height * 3)
        fail(path, "PPM truncated");
    pic->rgb = p;
}

/* ---- the framebuffer -------------------------------------------------------------------------- */
static unsigned long channel(u8 v, const struct fb_bitfield *f)
{
    if (f->length == 0)
        return 0;
    if (f->length > 8)
        return ((unsigned long)v << (f->length - 8)) << f->offset;
    return (unsigned long)(v >> (8 - f->length)) << f->offset;
}

static void draw(const char *dev, const struct picture *pic)
{
    struct fb_var_screeninfo var;
    struct fb_fix_screeninfo fix;
    long fd = sys3(__NR_open, dev, O_RDWR, 0);
    if (fd < 0)
        fail(dev, errno_text(fd));
    long rc = sys3(__NR_ioctl, fd, FBIOGET_VSCREENINFO, &var);
    if (rc == 0)
        rc = sys3(__NR_ioctl, fd, FBIOGET_FSCREENINFO, &fix);
    if (rc < 0)
        fail(dev, errno_text(rc));
    if (fix.type != FB_TYPE_PACKED_PIXELS ||
        (fix.visual != FB_VISUAL_TRUECOLOR && fix.visual != FB_VISUAL_DIRECTCOLOR))
        fail(dev, "not a packed true-colour framebuffer");
    unsigned long bytes_pp = var.bits_per_pixel / 8;
    if (var.bits_per_pixel != 16 && var.bits_per_pixel != 24 && var.bits_per_pixel != 32)
        fail(dev, "only 16, 24 and 32 bits per pixel are drawn");
    unsigned long len = fix.smem_len;
    unsigned long need = (unsigned long)fix.line_length * (var.yoffset + var.yres);
    if (!len || need > len || var.xres * bytes_pp > fix.line_length)
        fail(dev, "its mode does not fit its memory");
    long map = sys6(__NR_mmap, 0, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map < 0 && map > -4096)
        fail(dev, errno_text(map));
    /* cppcheck-suppress nullPointerArithmeticRedundantCheck ; mmap never gives 0 here */
    u8 *fb = (u8 *)map + (unsigned long)fix.line_length * var.yoffset + var.xoffset * bytes_pp;

    /* Centre the picture; a picture larger than the screen shows its middle. */
    long dx = ((long)var.xres - (long)pic->width) / 2,
         dy = ((long)var.yres - (long)pic->height) / 2;
    const u8 *bg = pic->rgb;
    for (unsigned long y = 0; y < var.yres; y++) {
        u8 *row = fb + y * fix.line_length;
        long sy = (long)y - dy;
        for (unsigned long x = 0; x < var.xres; x++) {
            long sx = (long)x - dx;
            const u8 *s = bg;
            if (sy >= 0 && sy < (long)pic->height && sx >= 0 && sx < (long)pic->width)
                s = pic->rgb + ((unsigned long)sy * pic->width + (unsigned long)sx) * 3;
            unsigned long v = channel(s[0], &var.red) | channel(s[1], &var.green) |
                              channel(s[2], &var.blue);
            for (unsigned long b = 0; b < bytes_pp; b++)
                row[x * bytes_pp + b] = (u8)(v >> (8 * b));
        }
    }
    out_len = 0;
    put("picture ");
    put_num(pic->width);
    put("x");
    put_num(pic->height);
    put(" on ");
    put(dev);
    put(" (");
    char id[sizeof fix.id + 1];
    memcpy(id, fix.id, sizeof fix.id);
    id[sizeof fix.id] = '\0';
    put(id);
    put(" ");
    put_num(var.xres);
    put("x");
    put_num(var.yres);
    put(", ");
    put_num(var.bits_per_pixel);
    put(" bpp)");
}

/* ---- entry ------------------------------------------------------------------------------------ */
__attribute__((noreturn, used)) void fbpicture_main(long *sp);
__attribute__((noreturn, used)) void fbpicture_main(long *sp)
{
    long argc = sp[0];
    char **argv = (char **)(sp + 1);
    struct picture pic;
    if (argc < 2 || argc > 3)
        fail("usage", "fbpicture PICTURE.ppm [/dev/fbN]");
    load_picture(argv[1], &pic);
    draw(argc == 3 ? argv[2] : "/dev/fb0", &pic);
    finish(0);
}

/* The kernel starts a static program with rsp at argc; the ABI wants rsp 16-byte aligned
 * before a call, which it is at entry (System V x86-64 ABI, section 3.4.1). */
__asm__(".globl _start\n"
        "_start:\n"
        "    mov %rsp, %rdi\n"
        "    xor %ebp, %ebp\n"
        "    call fbpicture_main\n"
        "    hlt\n");
