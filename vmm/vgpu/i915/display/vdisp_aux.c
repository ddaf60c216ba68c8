/*
 * The monitor's AUX channel (vdisp_aux.h says what it answers and why).
 */
#include "vmm/vgpu/i915/display/vdisp_aux.h"

#include <string.h>

#define EDID_EEPROM_BYTES 256u /* the I2C EEPROM space an E-DDC offset addresses */

void vdisp_aux_init(struct vdisp_aux *a, const uint8_t edid[EDID_BYTES])
{
    struct vdisp_aux_stats st = a->st;
    memset(a, 0, sizeof *a);
    a->st = st;
    memcpy(a->edid, edid, EDID_BYTES);
    /* DP 1.2, 2.7 Gb/s, four lanes with enhanced framing, no TPS3, no downspread, one receiver
     * port, 8b/10b, no downstream port (so SINK_COUNT is not consulted), no MST (0x021 = 0). */
    a->dpcd[DPCD_REV] = 0x12;
    a->dpcd[DPCD_MAX_LINK_RATE] = 0x0A;
    a->dpcd[DPCD_MAX_LANE_COUNT] = 0x84;
    a->dpcd[DPCD_MAX_DOWNSPREAD] = 0x00;
    a->dpcd[DPCD_NORP] = 0x01;
    a->dpcd[DPCD_MAIN_LINK_CODING] = 0x01;
    a->dpcd[DPCD_SINK_COUNT] = 0x01;
    a->dpcd[DPCD_SET_POWER] = 0x01; /* D0 */
}

/* TRAINING_PATTERN_SET: the sink locks at once on every lane. */
static void training(struct vdisp_aux *a, uint8_t tps)
{
    switch (tps & DPCD_TPS_MASK) {
    case 1:
        a->dpcd[DPCD_LANE0_1_STATUS] = DPCD_LANE_CR_DONE << 4 | DPCD_LANE_CR_DONE;
        a->dpcd[DPCD_LANE2_3_STATUS] = DPCD_LANE_CR_DONE << 4 | DPCD_LANE_CR_DONE;
        a->dpcd[DPCD_LANE_ALIGN_STATUS] = 0;
        break;
    case 2:
    case 3:
        a->dpcd[DPCD_LANE0_1_STATUS] = DPCD_LANE_EQ_LOCKED << 4 | DPCD_LANE_EQ_LOCKED;
        a->dpcd[DPCD_LANE2_3_STATUS] = DPCD_LANE_EQ_LOCKED << 4 | DPCD_LANE_EQ_LOCKED;
        a->dpcd[DPCD_LANE_ALIGN_STATUS] = DPCD_INTERLANE_ALIGN_DONE;
        break;
    default: /* training off: the link runs */
        a->dpcd[DPCD_SINK_STATUS] = DPCD_SINK_IN_SYNC;
        break;
    }
}

static bool dpcd_writable(uint32_t addr)
{
    /* Link configuration (0x100..), sink-specific and source OUI (0x300..), power (0x600). */
    return (addr >= 0x100 && addr < 0x200) || (addr >= 0x300 && addr < 0x400) ||
           addr == DPCD_SET_POWER;
}

static unsigned native(struct vdisp_aux *a, unsigned cmd, uint32_t addr, const uint8_t *data,
                       unsigned len, uint8_t *reply)
{
    if (cmd == AUX_NATIVE_READ) {
        a->st.native_reads++;
        reply[0] = AUX_REPLY_ACK;
        for (unsigned i = 0; i < len; i++)
            reply[1 + i] = addr + i < VDISP_DPCD_BYTES ? a->dpcd[addr + i] : 0;
        return 1 + len;
    }
    a->st.native_writes++;
    for (unsigned i = 0; i < len; i++) {
        if (!dpcd_writable(addr + i)) {
            a->st.nacks++;
            reply[0] = AUX_REPLY_NATIVE_NACK;
            return 1;
        }
    }
    for (unsigned i = 0; i < len; i++) {
        a->dpcd[addr + i] = data[i];
        if (addr + i == DPCD_TRAINING_PATTERN_SET)
            training(a, data[i]);
    }
    reply[0] = AUX_REPLY_ACK;
    return 1;
}

static unsigned i2c(struct vdisp_aux *a, unsigned cmd, uint32_t addr, const uint8_t *data,
                    unsigned len, uint8_t *reply)
{
    unsigned op = cmd & ~AUX_I2C_MOT;
    a->st.i2c++;
    if ((addr != AUX_I2C_EDID_ADDR && addr != AUX_I2C_SEGMENT_ADDR) ||
        (addr == AUX_I2C_SEGMENT_ADDR && (op == AUX_I2C_READ || (len && data[0] != 0)))) {
        a->st.nacks++;
        a->i2c_open = false;
        reply[0] = AUX_REPLY_I2C_NACK;
        return 1;
    }
    unsigned n = 0;
    if (addr == AUX_I2C_EDID_ADDR && op == AUX_I2C_WRITE && len)
        a->i2c_offset = data[0];
    else if (addr == AUX_I2C_EDID_ADDR && op == AUX_I2C_READ) {
        n = len < AUX_I2C_CHUNK ? len : AUX_I2C_CHUNK;
        for (unsigned i = 0; i < n; i++) {
            unsigned at = (unsigned)(a->i2c_offset + i) % EDID_EEPROM_BYTES;
            reply[1 + i] = at < EDID_BYTES ? a->edid[at] : 0xFF;
        }
        a->i2c_offset = (uint8_t)(a->i2c_offset + n);
    }
    a->i2c_open = (cmd & AUX_I2C_MOT) != 0;
    reply[0] = AUX_REPLY_ACK;
    return 1 + n;
}

unsigned vdisp_aux_request(struct vdisp_aux *a, const uint8_t *req, unsigned req_len,
                           uint8_t *reply)
{
    a->st.requests++;
    if (req_len < 3) {
        a->st.nacks++;
        reply[0] = AUX_REPLY_NATIVE_NACK;
        return 1;
    }
    unsigned cmd = req[0] >> 4;
    uint32_t addr = (uint32_t)(req[0] & 0xFu) << 16 | (uint32_t)req[1] << 8 | req[2];
    bool bare = req_len == 3;
    unsigned len = bare ? 0 : req[3] + 1u;
    bool write = cmd == AUX_NATIVE_WRITE || (cmd & ~AUX_I2C_MOT) == AUX_I2C_WRITE ||
                 (cmd & ~AUX_I2C_MOT) == AUX_I2C_WRITE_STATUS;
    const uint8_t *data = req + 4;
    /* A read asks for up to 16 bytes (the reply must fit the data registers); a write carries
     * what it says it carries. */
    if (len > AUX_I2C_CHUNK || (write && !bare && req_len != 4 + len) ||
        (!write && !bare && req_len != 4)) {
        a->st.nacks++;
        reply[0] = cmd & 0x8u ? AUX_REPLY_NATIVE_NACK : AUX_REPLY_I2C_NACK;
        return 1;
    }
    if (cmd == AUX_NATIVE_READ || cmd == AUX_NATIVE_WRITE)
        return native(a, cmd, addr, data, len, reply);
    if (cmd & 0x8u) { /* reserved native commands */
        a->st.nacks++;
        reply[0] = AUX_REPLY_NATIVE_NACK;
        return 1;
    }
    return i2c(a, cmd, addr, data, len, reply);
}
