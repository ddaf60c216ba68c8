/* libFuzzer target for the hypervisor's configuration entry point, cfg_blob_load: the wrapper,
 * libfdt's header and structure checks, and every semantic rule.  No input may crash, hang or
 * read out of bounds, and an accepted configuration must satisfy the rules the checker promises.
 *
 * Each input is tried twice: as a blob as is (wrapper checks), and with everything after the
 * 32-byte header re-wrapped with correct sizes and CRCs, so mutations of the DTB get past the
 * CRC and reach libfdt and the checker.  Seeds: tests/fuzz/seeds/fuzz_config_blob/ (blobs of
 * example configurations). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/blob.h"
#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond)
{
    if (!cond)
        abort();
}

static void count_line(void *ctx, const char *line)
{
    expect(strlen(line) < 1024);
    (*(unsigned *)ctx)++;
}

static int terminated(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

/* What an accepted configuration promises the hypervisor. */
static void check_accepted(const struct cfg *c)
{
    expect(c->n_guests >= 1 && c->n_guests <= TESSERA_MAX_GUESTS);
    expect(terminated(c->appliance.model, sizeof c->appliance.model));
    uint64_t ram = 0;
    for (unsigned i = 0; i < c->n_guests; i++) {
        const struct cfg_guest *g = &c->guest[i];
        expect(terminated(g->name, sizeof g->name) && g->name[0] != '\0');
        expect(terminated(g->image, sizeof g->image) && g->image[0] != '\0');
        expect(terminated(g->cmdline, sizeof g->cmdline));
        expect(g->weight >= CFG_WEIGHT_MIN && g->weight <= CFG_WEIGHT_MAX);
        expect((uint64_t)g->tile.x + g->tile.width <= c->display.width_px);
        expect((uint64_t)g->tile.y + g->tile.height <= c->display.height_px);
        expect(g->high_gm_mib % CFG_SLOT_MIB == 0);
        expect(terminated(g->initrd, sizeof g->initrd));
        if (g->kind == CFG_GUEST_LINUX) {
            expect(g->ram_mib >= CFG_LINUX_RAM_MIN_MIB);
            expect(g->fb_width_px >= CFG_TILE_MIN_PX && g->fb_height_px >= CFG_TILE_MIN_PX);
        } else {
            expect(g->kind == CFG_GUEST_TESSERA);
            expect(g->initrd[0] == '\0' && g->fb_width_px == 0 && strlen(g->cmdline) < 256);
        }
        for (unsigned j = 0; j < i; j++)
            expect(strcmp(g->name, c->guest[j].name) != 0);
        ram += g->ram_mib;
    }
    expect(ram <= c->appliance.ram_mib - c->appliance.reserved_mib);
    expect(c->balloon.min_slots <= c->balloon.max_slots && c->balloon.max_slots <= c->n_slots);
    expect(c->scheduler.slice_us >= CFG_SLICE_MIN_US && c->scheduler.slice_us <= CFG_SLICE_MAX_US);

    unsigned lines = 0;
    cfg_format(c, "fuzz", count_line, &lines);
    expect(lines == 6 + c->n_guests);
    char small[8];
    cfg_guest_summary(c, c->n_guests - 1, small, sizeof small);
    expect(strlen(small) < sizeof small);
}

static void try_load(const uint8_t *blob, size_t len)
{
    static struct cfg cfg;
    char err[256];
    memset(err, 'x', sizeof err);
    int rc = cfg_blob_load(blob, len, &cfg, err, sizeof err);
    expect(rc == CFG_OK || rc == CFG_EBLOB || rc == CFG_EINVALID);
    if (rc == CFG_OK)
        check_accepted(&cfg);
    else
        expect(terminated(err, sizeof err) && err[0] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    try_load(data, size);

    if (size <= CFG_BLOB_HEADER_BYTES)
        return 0;
    const uint8_t *dtb = data + CFG_BLOB_HEADER_BYTES;
    size_t len = size - CFG_BLOB_HEADER_BYTES;
    /* Take the DTB's own totalsize when it fits, so inserted or removed bytes elsewhere do not
     * stop every input at the size check. */
    if (len >= 8) {
        uint32_t total = (uint32_t)dtb[4] << 24 | (uint32_t)dtb[5] << 16 | (uint32_t)dtb[6] << 8 |
                         dtb[7];
        if (total >= 8 && total <= len)
            len = total;
    }
    if (len > CFG_BLOB_MAX_DTB)
        return 0;
    size_t blen = cfg_blob_size(len);
    uint8_t *blob = malloc(blen);
    if (!blob)
        return 0;
    if (cfg_blob_wrap(dtb, len, blob, blen, NULL, 0) == (int)blen)
        try_load(blob, blen);
    free(blob);
    return 0;
}
