/* The one-processor MP table (MP spec 1.4 chapter 4). */
#include "vmm/loader/mptable.h"

#include <string.h>

#define MP_OEM_ID     "TESSERA "     /* 8 bytes, space padded (§4.2) */
#define MP_PRODUCT_ID "VIRTUAL PC  " /* 12 bytes */

/* Floating pointer fields (§4.1, Figure 4-2). */
#define MPF_PHYSPTR  4
#define MPF_LENGTH   8
#define MPF_SPEC_REV 9
#define MPF_CHECKSUM 10
#define MPF_FEATURE1 11 /* 0: a configuration table is present */
#define MPF_FEATURE2 12 /* bit 7 IMCRP 0: virtual-wire mode, no IMCR */

/* Configuration table header fields (§4.2, Figure 4-3). */
#define MPC_LENGTH      4
#define MPC_SPEC_REV    6
#define MPC_CHECKSUM    7
#define MPC_OEM_ID      8
#define MPC_PRODUCT_ID  16
#define MPC_ENTRY_COUNT 34
#define MPC_LAPIC_ADDR  36

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

uint8_t mptable_checksum(const uint8_t *p, size_t len)
{
    uint8_t sum = 0;
    for (size_t i = 0; i < len; i++)
        sum = (uint8_t)(sum + p[i]);
    return (uint8_t)(0x100 - sum);
}

/* A local interrupt assignment (§4.3.5): source bus 0 IRQ 0, every local APIC, input `lint`;
 * flags 0 = polarity and trigger conform to the bus. */
static uint8_t *local_int(uint8_t *e, uint8_t type, uint8_t lint)
{
    e[0] = MP_ENTRY_LOCAL_INT;
    e[1] = type;
    put16(e + 2, 0);
    e[4] = 0;
    e[5] = 0;
    e[6] = MP_ALL_LOCAL_APICS;
    e[7] = lint;
    return e + MP_LOCAL_INT_BYTES;
}

size_t mptable_build(uint8_t *buf, size_t len, uint64_t gpa, const struct mptable_cpu *cpu)
{
    if (!buf || !cpu || !cpu->count || cpu->count > MPTABLE_MAX_CPUS)
        return 0;
    size_t bytes = MPTABLE_BYTES(cpu->count);
    if (len < bytes || gpa + bytes > (uint64_t)UINT32_MAX + 1)
        return 0;
    memset(buf, 0, bytes);
    uint8_t *mpc = buf + MP_FLOATING_BYTES;

    /* The configuration table: header, then the entries in the order §4.3 asks for. */
    memcpy(mpc, MP_CONFIG_SIGNATURE, 4);
    mpc[MPC_SPEC_REV] = MP_SPEC_REV_1_4;
    memcpy(mpc + MPC_OEM_ID, MP_OEM_ID, 8);
    memcpy(mpc + MPC_PRODUCT_ID, MP_PRODUCT_ID, 12);
    put32(mpc + MPC_LAPIC_ADDR, cpu->lapic_base);
    uint8_t *e = mpc + MP_CONFIG_HEADER_BYTES;

    for (unsigned i = 0; i < cpu->count; i++, e += MP_PROCESSOR_BYTES) {
        e[0] = MP_ENTRY_PROCESSOR; /* §4.3.1, Figure 4-4 */
        e[1] = (uint8_t)i;
        e[2] = MPTABLE_LAPIC_VERSION;
        e[3] = MP_CPU_ENABLED | (i == 0 ? MP_CPU_BOOTSTRAP : 0);
        put32(e + 4, cpu->signature);
        put32(e + 8, cpu->features);
    }

    e[0] = MP_ENTRY_BUS; /* §4.3.2, Figure 4-5 */
    e[1] = 0;
    memcpy(e + 2, MP_BUS_TYPE_ISA, 6);
    e += MP_BUS_BYTES;

    e = local_int(e, MP_INT_EXTINT, 0); /* the 8259 through LINT0 */
    e = local_int(e, MP_INT_NMI, 1);

    size_t mpc_len = (size_t)(e - mpc);
    put16(mpc + MPC_LENGTH, (uint16_t)mpc_len);
    put16(mpc + MPC_ENTRY_COUNT, (uint16_t)(cpu->count + 3u)); /* + bus, 2 local ints */
    mpc[MPC_CHECKSUM] = mptable_checksum(mpc, mpc_len);

    memcpy(buf, MP_FLOATING_SIGNATURE, 4); /* §4.1 */
    put32(buf + MPF_PHYSPTR, (uint32_t)(gpa + MP_FLOATING_BYTES));
    buf[MPF_LENGTH] = 1;
    buf[MPF_SPEC_REV] = MP_SPEC_REV_1_4;
    buf[MPF_FEATURE1] = 0;
    buf[MPF_FEATURE2] = 0;
    buf[MPF_CHECKSUM] = mptable_checksum(buf, MP_FLOATING_BYTES);
    return bytes;
}
