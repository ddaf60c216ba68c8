/* Shell command `screenshot [vm] [crc]`: the kiosk wall, or one guest's own framebuffer, in the
 * screenshot text format (vmm/display/screenshot.h, docs/display.md) on the console. */
#include "vmm/shell/commands.h"

#include "vmm/console.h"
#include "vmm/display/screenshot.h"
#include "vmm/shell/args.h"
#include "vmm/display/wall.h"

#include <stdio.h>
#include <string.h>

/* Lines are gathered into chunks so the console takes a few large writes, not one per row.
 * console_write never drops bytes: when its ring is full it waits for the UART, so a screenshot
 * larger than the ring arrives whole, only slower (the shell, and with it the main loop, waits
 * meanwhile). */
#define CHUNK_BYTES 4096u

struct chunker {
    char buf[CHUNK_BYTES];
    size_t used;
};

static void chunk_flush(struct chunker *c)
{
    if (c->used)
        console_write(c->buf, c->used);
    c->used = 0;
}

static bool chunk_line(void *ctx, const char *line, size_t len)
{
    struct chunker *c = ctx;
    if (c->used + len + 1 > sizeof c->buf)
        chunk_flush(c);
    if (len + 1 > sizeof c->buf) { /* a row longer than a chunk goes out by itself */
        console_write(line, len);
        console_write("\n", 1);
        return true;
    }
    memcpy(c->buf + c->used, line, len);
    c->used += len;
    c->buf[c->used++] = '\n';
    return true;
}

/* A guest by id or name, among the configured guests (whether or not VT-x runs them). */
static int lookup_guest(const char *arg)
{
    uint32_t id;
    if (args_parse_u32(arg, &id))
        return id < wall_guest_count() ? (int)id : -1;
    for (unsigned i = 0; i < wall_guest_count(); i++)
        if (!strcmp(wall_guest_name(i), arg))
            return (int)i;
    return -1;
}

static enum shell_status write_image(const struct display_image *img, const char *subject,
                                     bool crc_only)
{
    if (crc_only) {
        uint32_t crc;
        int rc = display_screenshot_crc(img, &crc);
        if (rc != DISPLAY_SHOT_OK) {
            shell_error("%s: %s", subject, display_shot_strerror(rc));
            return SHELL_FAILED;
        }
        char line[128];
        display_screenshot_crc_line(line, sizeof line, img->width, img->height, subject, crc);
        printf("%s\n", line);
        return SHELL_OK;
    }
    static struct chunker chunks; /* 4 KiB: kept off the stack */
    chunks.used = 0;
    struct display_shot_result res;
    int rc = display_screenshot_write(img, subject, chunk_line, &chunks, &res);
    chunk_flush(&chunks);
    if (rc != DISPLAY_SHOT_OK) {
        shell_error("screenshot of %s: %s", subject, display_shot_strerror(rc));
        return SHELL_FAILED;
    }
    return SHELL_OK;
}

enum shell_status cmd_screenshot(int argc, char **argv)
{
    bool crc_only = argc > 1 && !strcmp(argv[argc - 1], "crc");
    int nargs = argc - 1 - crc_only; /* the guest, if named */
    if (nargs > 1)
        return SHELL_USAGE;
    if (nargs == 0 || !strcmp(argv[1], "wall")) {
        struct display_image img;
        struct display_mem mem;
        if (!wall_compose_now() || !wall_image(&img, &mem)) {
            shell_error("no kiosk wall: %s",
                        wall_get_stats()->why[0] ? wall_get_stats()->why : "not set up");
            return SHELL_FAILED;
        }
        enum shell_status st = write_image(&img, "wall", crc_only);
        if (st == SHELL_OK && !crc_only) {
            char line[400];
            wall_describe(line, sizeof line);
            printf("%s\n", line);
        }
        return st;
    }
    int vm = lookup_guest(argv[1]);
    if (vm < 0) {
        shell_error("no guest '%s' (give an id from 0 to %u or a name)", argv[1],
                    wall_guest_count() ? wall_guest_count() - 1 : 0);
        return SHELL_FAILED;
    }
    struct display_image img;
    const char *why;
    if (!wall_guest_image((unsigned)vm, &img, &why)) {
        if (why[0])
            shell_error("guest %d (%s) has no picture: no signal (bad surface: %s)", vm,
                        wall_guest_name((unsigned)vm), why);
        else
            shell_error(
                "guest %d (%s) has no picture: its display plane is off or its vGPU is not running",
                vm, wall_guest_name((unsigned)vm));
        return SHELL_FAILED;
    }
    return write_image(&img, wall_guest_name((unsigned)vm), crc_only);
}
