/*
 * Modes and the EDID of the virtual monitor (lib/edid.h says what and why).  Layout: VESA
 * E-EDID 1.4, section 3 (base block), 3.10.2 (detailed timing descriptor), 3.10.3 (display
 * descriptors).
 */
#include "lib/edid.h"

#include <string.h>

/* Blanking at its narrowest: VESA CVT reduced blanking's horizontal front porch, sync and back
 * porch (48 + 32 + 80 pixels), and short vertical porches (3 + 4 + 7 lines). */
#define H_FRONT       48u
#define H_SYNC        32u
#define H_BACK_MIN    80u
#define V_FRONT       3u
#define V_SYNC        4u
#define V_BACK_MIN    7u
#define BLANK_MAX     4095u  /* the detailed timing's 12-bit blanking fields */
#define EXACT_SEARCH  1000u  /* pixels of extra blanking tried for an exact refresh */
#define CLOCK_UNIT_HZ 10000u /* the EDID's pixel-clock unit */
#define DPI           96u    /* the physical size the EDID claims */

static uint32_t div_up(uint64_t a, uint64_t b)
{
    return (uint32_t)((a + b - 1) / b);
}

bool edid_mode_make(uint32_t w, uint32_t h, uint32_t hz, struct edid_mode *m)
{
    if (w < EDID_MIN_SIDE || h < EDID_MIN_SIDE || w > EDID_MAX_WIDTH || h > EDID_MAX_HEIGHT ||
        hz < EDID_MIN_HZ || hz > EDID_MAX_HZ)
        return false;
    uint32_t vtotal = h + V_FRONT + V_SYNC + V_BACK_MIN;
    uint32_t htotal = w + H_FRONT + H_SYNC + H_BACK_MIN;
    uint64_t min_clock = (uint64_t)EDID_MIN_CLOCK_KHZ * 1000u;
    /* Too slow a clock: the horizontal blanking grows first, then the vertical. */
    if ((uint64_t)htotal * vtotal * hz < min_clock)
        htotal = div_up(min_clock, (uint64_t)vtotal * hz);
    if (htotal - w > BLANK_MAX) {
        htotal = w + BLANK_MAX;
        vtotal = div_up(min_clock, (uint64_t)htotal * hz);
        if (vtotal - h > BLANK_MAX)
            return false;
    }
    /* An exact refresh needs htotal * vtotal * hz in whole 10 kHz units. */
    for (uint32_t t = htotal; t <= htotal + EXACT_SEARCH && t - w <= BLANK_MAX; t++) {
        if ((uint64_t)t * vtotal * hz % CLOCK_UNIT_HZ == 0) {
            htotal = t;
            break;
        }
    }
    uint64_t clock_hz = (uint64_t)htotal * vtotal * hz;
    uint32_t clock_khz = div_up(clock_hz, CLOCK_UNIT_HZ) * (CLOCK_UNIT_HZ / 1000u);
    if (clock_khz > EDID_MAX_CLOCK_KHZ)
        return false;
    *m = (struct edid_mode){
        .clock_khz = clock_khz,
        .hdisplay = w,
        .hsync_start = w + H_FRONT,
        .hsync_end = w + H_FRONT + H_SYNC,
        .htotal = htotal,
        .vdisplay = h,
        .vsync_start = h + V_FRONT,
        .vsync_end = h + V_FRONT + V_SYNC,
        .vtotal = vtotal,
    };
    return true;
}

uint32_t edid_mode_refresh_mhz(const struct edid_mode *m)
{
    uint64_t pixels = (uint64_t)m->htotal * m->vtotal;
    return pixels ? (uint32_t)((uint64_t)m->clock_khz * 1000000u / pixels) : 0;
}

bool edid_mode_i915_valid(const struct edid_mode *m)
{
    return m->hdisplay >= EDID_MIN_SIDE && m->htotal >= m->hdisplay + 32u &&
           m->vtotal >= m->vdisplay + 5u && m->hsync_start > m->hdisplay &&
           m->hsync_end > m->hsync_start && m->htotal >= m->hsync_end &&
           m->vsync_start > m->vdisplay && m->vsync_end > m->vsync_start &&
           m->vtotal >= m->vsync_end && m->clock_khz >= EDID_MIN_CLOCK_KHZ;
}

/* ---- the EDID --------------------------------------------------------------------------- */

#define DESC0           54u /* the four 18-byte descriptors */
#define DESC_BYTES      18u
#define EDID_EXTENSIONS 126u
#define EDID_CHECKSUM   127u

static uint32_t mm_of(uint32_t px)
{
    return px * 254u / (DPI * 10u);
}

/* A detailed timing descriptor (E-EDID 1.4 table 3.21): digital separate sync, both polarities
 * positive. */
static void put_timing(uint8_t *d, const struct edid_mode *m)
{
    uint32_t hblank = m->htotal - m->hdisplay, vblank = m->vtotal - m->vdisplay;
    uint32_t hso = m->hsync_start - m->hdisplay, hsw = m->hsync_end - m->hsync_start;
    uint32_t vso = m->vsync_start - m->vdisplay, vsw = m->vsync_end - m->vsync_start;
    uint32_t clock = m->clock_khz / 10u, wmm = mm_of(m->hdisplay), hmm = mm_of(m->vdisplay);
    d[0] = (uint8_t)clock;
    d[1] = (uint8_t)(clock >> 8);
    d[2] = (uint8_t)m->hdisplay;
    d[3] = (uint8_t)hblank;
    d[4] = (uint8_t)((m->hdisplay >> 8) << 4 | (hblank >> 8));
    d[5] = (uint8_t)m->vdisplay;
    d[6] = (uint8_t)vblank;
    d[7] = (uint8_t)((m->vdisplay >> 8) << 4 | (vblank >> 8));
    d[8] = (uint8_t)hso;
    d[9] = (uint8_t)hsw;
    d[10] = (uint8_t)((vso & 0xFu) << 4 | (vsw & 0xFu));
    d[11] = (uint8_t)((hso >> 8) << 6 | (hsw >> 8) << 4 | (vso >> 4) << 2 | (vsw >> 4));
    d[12] = (uint8_t)wmm;
    d[13] = (uint8_t)hmm;
    d[14] = (uint8_t)((wmm >> 8) << 4 | (hmm >> 8));
    d[15] = d[16] = 0; /* no border */
    d[17] = 0x1E;      /* digital separate sync, +vsync, +hsync */
}

bool edid_timing(const uint8_t edid[EDID_BYTES], unsigned i, struct edid_mode *m)
{
    const uint8_t *d = edid + DESC0 + DESC_BYTES * i;
    if (i > 3 || (d[0] == 0 && d[1] == 0))
        return false;
    uint32_t hblank = d[3] | (uint32_t)(d[4] & 0xFu) << 8, vblank = d[6] | (uint32_t)(d[7] & 0xFu)
                                                                               << 8;
    uint32_t hso = d[8] | (uint32_t)(d[11] >> 6) << 8, hsw = d[9] | (uint32_t)(d[11] >> 4 & 3u)
                                                                        << 8;
    uint32_t vso = (d[10] >> 4) | (uint32_t)(d[11] >> 2 & 3u) << 4,
             vsw = (d[10] & 0xFu) | (uint32_t)(d[11] & 3u) << 4;
    m->clock_khz = (d[0] | (uint32_t)d[1] << 8) * 10u;
    m->hdisplay = d[2] | (uint32_t)(d[4] >> 4) << 8;
    m->vdisplay = d[5] | (uint32_t)(d[7] >> 4) << 8;
    m->htotal = m->hdisplay + hblank;
    m->vtotal = m->vdisplay + vblank;
    m->hsync_start = m->hdisplay + hso;
    m->hsync_end = m->hsync_start + hsw;
    m->vsync_start = m->vdisplay + vso;
    m->vsync_end = m->vsync_start + vsw;
    return true;
}

/* A dummy descriptor (tag 0x10, E-EDID 3.10.3.11). */
static void put_dummy(uint8_t *d)
{
    memset(d, 0, DESC_BYTES);
    d[3] = 0x10;
}

/* A display descriptor (tag) with 13 bytes of text, newline-terminated and space-padded. */
static void put_text(uint8_t *d, uint8_t tag, const char *text)
{
    size_t n = strlen(text);
    memset(d, 0, 5);
    d[3] = tag;
    for (unsigned i = 0; i < 13; i++)
        d[5 + i] = i < n ? (uint8_t)text[i] : i == n ? '\n' : ' ';
}

bool edid_build(uint32_t w, uint32_t h, uint32_t hz, uint8_t edid[EDID_BYTES])
{
    static const uint8_t header[8] = { 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00 };
    /* sRGB primaries and white point, as 10-bit CIE coordinates (E-EDID 3.7). */
    static const uint8_t srgb[10] = { 0xEE, 0x91, 0xA3, 0x54, 0x4C, 0x99, 0x26, 0x0F, 0x50, 0x54 };
    struct edid_mode pref, alt;
    bool two = w != EDID_ALT_WIDTH || h != EDID_ALT_HEIGHT;
    if (!edid_mode_make(w, h, hz, &pref) ||
        (two && !edid_mode_make(EDID_ALT_WIDTH, EDID_ALT_HEIGHT, hz, &alt)))
        return false;
    memset(edid, 0, EDID_BYTES);
    memcpy(edid, header, sizeof header);
    /* Manufacturer "TSA" (three 5-bit letters, 'A' = 1, big-endian), product 1, week 1 of
     * 2024, EDID 1.4. */
    edid[8] = 0x52;
    edid[9] = 0x61;
    edid[10] = 0x01;
    edid[16] = 1;
    edid[17] = 2024 - 1990;
    edid[18] = 1;
    edid[19] = 4;
    edid[20] = 0xA5; /* digital, 8 bits per colour, DisplayPort */
    edid[21] = (uint8_t)((mm_of(w) + 5) / 10 ? (mm_of(w) + 5) / 10 : 1); /* cm */
    edid[22] = (uint8_t)((mm_of(h) + 5) / 10 ? (mm_of(h) + 5) / 10 : 1);
    edid[23] = 120;  /* gamma 2.2: (2.2 - 1) * 100 */
    edid[24] = 0x06; /* RGB 4:4:4, sRGB, preferred timing is native */
    memcpy(edid + 25, srgb, sizeof srgb);
    for (unsigned i = 38; i < 54; i++) /* no standard timings */
        edid[i] = 0x01;
    put_timing(edid + DESC0, &pref);
    if (two)
        put_timing(edid + DESC0 + DESC_BYTES, &alt);
    else
        put_dummy(edid + DESC0 + DESC_BYTES);
    put_text(edid + DESC0 + 2 * DESC_BYTES, 0xFC, "Tessera DP-1");
    put_dummy(edid + DESC0 + 3 * DESC_BYTES);
    edid[EDID_EXTENSIONS] = 0;
    uint8_t sum = 0;
    for (unsigned i = 0; i < EDID_CHECKSUM; i++)
        sum = (uint8_t)(sum + edid[i]);
    edid[EDID_CHECKSUM] = (uint8_t)(0x100 - sum);
    return true;
}
