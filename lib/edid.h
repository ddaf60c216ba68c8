/*
 * The virtual monitor's identity: a display mode with timings i915 6.1 accepts, and the EDID
 * that offers it as preferred (VESA E-EDID 1.4).
 *
 * Mode rules (i915 intel_cpu_transcoder_mode_valid(), intel_dp_mode_valid(),
 * intel_mode_valid_max_plane_size()): hactive >= 64, horizontal blanking >= 32 pixels, vertical
 * blanking >= 5 lines, a horizontal front porch of at least one pixel, a pixel clock of at least
 * 10 MHz.  A low refresh rate (an emulator's configuration) widens the blanking to keep the clock
 * there.  The clock is a whole number of 10 kHz units (the EDID's), chosen so that the refresh
 * is exact when the blanking allows it.
 *
 * The EDID: digital input, 8 bits per colour, DisplayPort; no continuous frequency and no range
 * descriptor (so drm infers no extra modes); the preferred mode as the first detailed timing
 * (preferred in EDID 1.4 by definition), 640x480 at the same refresh as a second one (a mode to
 * switch to), the monitor's name, and the checksum.  Pure.
 */
#ifndef TESSERA_LIB_EDID_H
#define TESSERA_LIB_EDID_H

#include <stdbool.h>
#include <stdint.h>

#define EDID_BYTES         128u
#define EDID_MIN_SIDE      64u   /* i915: hdisplay >= 64 */
#define EDID_MAX_WIDTH     4095u /* the detailed timing's 12-bit fields */
#define EDID_MAX_HEIGHT    4095u
#define EDID_MIN_HZ        10u
#define EDID_MAX_HZ        60u
#define EDID_MIN_CLOCK_KHZ 10000u  /* intel_dp_mode_valid(): MODE_CLOCK_LOW below */
#define EDID_MAX_CLOCK_KHZ 655350u /* the detailed timing's 16 bits of 10 kHz */
#define EDID_ALT_WIDTH     640u    /* the second mode offered */
#define EDID_ALT_HEIGHT    480u

struct edid_mode {
    uint32_t clock_khz;
    uint32_t hdisplay, hsync_start, hsync_end, htotal;
    uint32_t vdisplay, vsync_start, vsync_end, vtotal;
};

/* Timings for w x h at hz (EDID_MIN_HZ..EDID_MAX_HZ); false if no mode within the limits. */
bool edid_mode_make(uint32_t w, uint32_t h, uint32_t hz, struct edid_mode *m);
/* The refresh of m in millihertz. */
uint32_t edid_mode_refresh_mhz(const struct edid_mode *m);
/* Whether m keeps i915's rules above (what a test checks every generated mode against). */
bool edid_mode_i915_valid(const struct edid_mode *m);

/* The EDID of a monitor whose preferred mode is w x h at hz (and 640x480 at hz when the
 * preferred mode is another); false if edid_mode_make() refuses either. */
bool edid_build(uint32_t w, uint32_t h, uint32_t hz, uint8_t edid[EDID_BYTES]);
/* Decodes the detailed timing descriptor at edid[54 + 18 * i] (i = 0..3); false if that
 * descriptor is not a timing. */
bool edid_timing(const uint8_t edid[EDID_BYTES], unsigned i, struct edid_mode *m);

#endif
