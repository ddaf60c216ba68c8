/*
 * The virtual monitor's side of the DisplayPort AUX channel: its DPCD (the sink's registers,
 * DP 1.2), link training as a sink that always locks, and its EDID over I2C-over-AUX.
 *
 * One AUX request is one call, answered at once (i915 intel_dp_aux_xfer() polls SEND_BUSY, so
 * an answer completed inside the guest's write needs no interrupt).  Requests (DP 1.2 section
 * 2.7, drm_dp_helper.h): byte 0 is the command in bits 7:4 (native write 8, native read 9; I2C
 * write 0, read 1, write-status 2, with MOT 4 = "more to come") and address bits 19:16, then
 * address 15:8 and 7:0, then length - 1 unless the request is address-only, then the data of a
 * write.  Replies: byte 0 is the reply code in bits 7:4 (native NACK 0x10, I2C NACK 0x40;
 * 0x00 = both ACK), then the data of a read.
 *
 *  - Native reads decode all 20 address bits and answer zeros past the DPCD the monitor has
 *    (LTTPR capabilities at 0xF0000 read as "none"); native writes there are NACKed.
 *  - Link training: TRAINING_PATTERN_SET (0x102) = TPS1 sets clock recovery on every lane,
 *    TPS2/TPS3 also channel equalisation, symbol lock and inter-lane alignment; the bits stay
 *    set while the link is up (intel_dp_needs_link_retrain() must never see a failing link,
 *    or every detect retrains, a full modeset).  ADJUST_REQUEST reads 0: no change asked.
 *  - I2C-over-AUX at 0x50 is the EDID: a write sets the offset, reads return up to 16 bytes
 *    from it (drm_dp_i2c_xfer()'s transfer size) and advance it; a request without MOT ends
 *    the transaction.  0x30 (the E-DDC segment pointer) takes segment 0 only: there are no
 *    extension blocks.  Any other I2C address is NACKed.
 *
 * Pure; bounded work per request (at most 16 data bytes).
 */
#ifndef TESSERA_VMM_VGPU_I915_DISPLAY_VDISP_AUX_H
#define TESSERA_VMM_VGPU_I915_DISPLAY_VDISP_AUX_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/edid.h"

#define VDISP_AUX_MSG_MAX 20u /* five 32-bit data registers */
#define VDISP_DPCD_BYTES \
    0x700u /* what a Skylake i915 reads or writes (below
                                             * DP_EDP_DPCD_REV); zeros past it */
/* DPCD addresses (DP 1.2 table 2-136; drm_dp_helper.h names). */
#define DPCD_REV                  0x000u
#define DPCD_MAX_LINK_RATE        0x001u
#define DPCD_MAX_LANE_COUNT       0x002u
#define DPCD_MAX_DOWNSPREAD       0x003u
#define DPCD_NORP                 0x004u
#define DPCD_MAIN_LINK_CODING     0x006u
#define DPCD_LANE_COUNT_SET       0x101u
#define DPCD_TRAINING_PATTERN_SET 0x102u
#define DPCD_SINK_COUNT           0x200u
#define DPCD_LANE0_1_STATUS       0x202u
#define DPCD_LANE2_3_STATUS       0x203u
#define DPCD_LANE_ALIGN_STATUS    0x204u
#define DPCD_SINK_STATUS          0x205u
#define DPCD_SET_POWER            0x600u
#define DPCD_TPS_MASK             0x3u
#define DPCD_LANE_CR_DONE         0x1u /* per lane nibble */
#define DPCD_LANE_EQ_LOCKED       0x7u /* CR done, channel EQ done, symbol locked */
#define DPCD_INTERLANE_ALIGN_DONE 0x1u
#define DPCD_SINK_IN_SYNC         0x1u
/* AUX request and reply codes. */
#define AUX_NATIVE_WRITE      0x8u
#define AUX_NATIVE_READ       0x9u
#define AUX_I2C_WRITE         0x0u
#define AUX_I2C_READ          0x1u
#define AUX_I2C_WRITE_STATUS  0x2u
#define AUX_I2C_MOT           0x4u
#define AUX_REPLY_ACK         0x00u
#define AUX_REPLY_NATIVE_NACK 0x10u
#define AUX_REPLY_I2C_NACK    0x40u
#define AUX_I2C_EDID_ADDR     0x50u
#define AUX_I2C_SEGMENT_ADDR  0x30u
#define AUX_I2C_CHUNK         16u

struct vdisp_aux_stats {
    uint64_t requests, native_reads, native_writes, i2c, nacks;
};

struct vdisp_aux {
    uint8_t dpcd[VDISP_DPCD_BYTES];
    uint8_t edid[EDID_BYTES];
    uint8_t i2c_offset; /* next EDID byte */
    bool i2c_open;      /* a MOT transaction is under way */
    struct vdisp_aux_stats st;
};

/* The monitor's DPCD at power-on (link untrained), with edid as its EDID. */
void vdisp_aux_init(struct vdisp_aux *a, const uint8_t edid[EDID_BYTES]);
/* One AUX request of req_len bytes; the reply goes to reply (VDISP_AUX_MSG_MAX bytes) and its
 * length is returned (at least 1). */
unsigned vdisp_aux_request(struct vdisp_aux *a, const uint8_t *req, unsigned req_len,
                           uint8_t *reply);

#endif
