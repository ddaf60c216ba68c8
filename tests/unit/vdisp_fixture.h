/*
 * i915 6.1's side of the virtual monitor's registers, for the vdisp tests: the AUX transfer
 * (intel_dp_aux.c intel_dp_aux_xfer() with skl_get_aux_send_ctl()), drm's DPCD and I2C-over-AUX
 * helpers (drm_dp_helper.c drm_dp_dpcd_read/write(), drm_dp_i2c_xfer()), at register level.
 */
#ifndef TESSERA_TESTS_UNIT_VDISP_FIXTURE_H
#define TESSERA_TESTS_UNIT_VDISP_FIXTURE_H

#include "drivers/igpu/gen9_display.h"
#include "vmm/vgpu/i915/display/vdisp.h"

#define AUXD 3u
/* skl_get_aux_send_ctl(): busy, done, interrupt, the error bits, 1600 us timeout, sizes. */
#define SEND_CTL(n) \
    (GEN9_DP_AUX_CH_CTL_SEND_BUSY | GEN9_DP_AUX_CH_CTL_STICKY | GEN9_DP_AUX_CH_CTL_INTERRUPT | \
     (3u << 26) | ((uint32_t)(n) << 20) | (31u << 5) | 31u)

static uint64_t fx_now;

/* One AUX transfer; the reply's byte count (or -1: not done, -2: timeout, -3: receive error). */
static inline int fx_aux(struct vdisp *d, const uint8_t *tx, unsigned n, uint8_t *rx)
{
    uint32_t st = vdisp_read(d, GEN9_DP_AUX_CH_CTL(AUXD), fx_now);
    if (st & GEN9_DP_AUX_CH_CTL_SEND_BUSY)
        return -1;
    for (unsigned i = 0; i < n; i += 4) {
        uint32_t v = 0;
        for (unsigned k = 0; k < 4 && i + k < n; k++)
            v |= (uint32_t)tx[i + k] << (24 - 8 * k);
        vdisp_write(d, GEN9_DP_AUX_CH_DATA(AUXD, i / 4), v, fx_now);
    }
    vdisp_write(d, GEN9_DP_AUX_CH_CTL(AUXD), SEND_CTL(n), fx_now);
    st = vdisp_read(d, GEN9_DP_AUX_CH_CTL(AUXD), fx_now); /* wait_done: at once */
    vdisp_write(d, GEN9_DP_AUX_CH_CTL(AUXD), st | GEN9_DP_AUX_CH_CTL_STICKY, fx_now);
    if (st & GEN9_DP_AUX_CH_CTL_SEND_BUSY || !(st & GEN9_DP_AUX_CH_CTL_DONE))
        return -1;
    if (st & GEN9_DP_AUX_CH_CTL_TIME_OUT_ERROR)
        return -2;
    if (st & GEN9_DP_AUX_CH_CTL_RECEIVE_ERROR)
        return -3;
    unsigned got = (st & GEN9_DP_AUX_CH_CTL_SIZE_MASK) >> GEN9_DP_AUX_CH_CTL_SIZE_SHIFT;
    for (unsigned i = 0; i < got; i++)
        rx[i] = (uint8_t)(vdisp_read(d, GEN9_DP_AUX_CH_DATA(AUXD, i / 4), fx_now) >>
                          (24 - 8 * (i % 4)));
    return (int)got;
}

/* drm_dp_dpcd_read(): native read of n (<= 16) bytes; the reply code or -1. */
static inline int fx_dpcd_read(struct vdisp *d, uint32_t addr, uint8_t *buf, unsigned n)
{
    uint8_t tx[4] = { (uint8_t)(0x90 | (addr >> 16 & 0xF)), (uint8_t)(addr >> 8), (uint8_t)addr,
                      (uint8_t)(n - 1) };
    uint8_t rx[20];
    int got = fx_aux(d, tx, 4, rx);
    if (got < 1)
        return -1;
    for (int i = 1; i < got; i++)
        buf[i - 1] = rx[i];
    return rx[0] == 0 && (unsigned)got == n + 1 ? 0 : rx[0];
}

static inline int fx_dpcd_write(struct vdisp *d, uint32_t addr, const uint8_t *buf, unsigned n)
{
    uint8_t tx[20] = { (uint8_t)(0x80 | (addr >> 16 & 0xF)), (uint8_t)(addr >> 8), (uint8_t)addr,
                       (uint8_t)(n - 1) };
    uint8_t rx[20];
    for (unsigned i = 0; i < n; i++)
        tx[4 + i] = buf[i];
    int got = fx_aux(d, tx, 4 + n, rx);
    return got < 1 ? -1 : rx[0];
}

/* One I2C-over-AUX request: bare (len 0) or with data; returns the reply length or -1. */
static inline int fx_i2c(struct vdisp *d, uint8_t cmd, uint8_t addr, const uint8_t *data,
                         unsigned len, bool read, uint8_t *rx)
{
    uint8_t tx[20] = { (uint8_t)(cmd << 4), 0, addr, (uint8_t)(len - 1) };
    unsigned n = 3;
    if (len) {
        n = 4;
        for (unsigned i = 0; !read && data && i < len; i++)
            tx[n++] = data[i];
    }
    return fx_aux(d, tx, n, rx);
}

/* drm_do_probe_ddc_edid() through drm_dp_i2c_xfer(): write the offset, read `len` bytes in
 * chunks of up to 16 (shorter if the sink answers short), stop.  Returns the AUX transfers
 * used, or -1 on a NACK. */
static inline int fx_read_edid(struct vdisp *d, uint8_t *edid, unsigned len)
{
    uint8_t rx[20], off = 0;
    int xfers = 0;
    if (fx_i2c(d, 0x4, 0x50, NULL, 0, false, rx) != 1 || rx[0])
        return -1; /* start, MOT */
    if (fx_i2c(d, 0x4, 0x50, &off, 1, false, rx) != 1 || rx[0])
        return -1; /* offset 0 */
    if (fx_i2c(d, 0x5, 0x50, NULL, 0, true, rx) != 1 || rx[0])
        return -1; /* read start */
    xfers = 3;
    for (unsigned got = 0; got < len;) {
        unsigned want = len - got < 16 ? len - got : 16;
        int r = fx_i2c(d, 0x5, 0x50, NULL, want, true, rx);
        xfers++;
        if (r < 2 || rx[0])
            return -1;
        for (int i = 1; i < r; i++)
            edid[got++] = rx[i];
    }
    fx_i2c(d, 0x1, 0x50, NULL, 0, true, rx); /* stop */
    return xfers + 1;
}

#endif
