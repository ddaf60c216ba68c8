/* libFuzzer target for the MMIO instruction decoder (vmm/vcpu/mmio_decode.c).  The input is copied
 * into a heap buffer of exactly its size, so ASan catches any read at or beyond `avail`.
 * Checked: only the documented results; an accepted instruction has len <= 15 and <= avail,
 * sane fields, and decodes the same from exactly its own bytes (and as truncated from one byte
 * less); a rejection does not turn into acceptance with fewer bytes; the register-merge and
 * store helpers follow the x86 width rules. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/vcpu/mmio_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

static uint64_t mask_of(unsigned bytes)
{
    return bytes >= 8 ? ~0ULL : (1ULL << (8 * bytes)) - 1;
}

static int decode_copy(const uint8_t *data, unsigned n, struct mmio_insn *out)
{
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        abort();
    memcpy(buf, data, n);
    int rc = mmio_decode(buf, n, out);
    free(buf);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The first 16 bytes are the old register value and the loaded value for the helpers. */
    uint64_t old = 0, value = 0;
    if (size >= 16) {
        memcpy(&old, data, 8);
        memcpy(&value, data + 8, 8);
        data += 16;
        size -= 16;
    }
    unsigned avail = size > 64 ? 64 : (unsigned)size;

    struct mmio_insn d;
    int rc = decode_copy(data, avail, &d);
    check(rc == 0 || rc == MMIO_EUNSUPPORTED || rc == MMIO_ETRUNCATED);
    check(mmio_strerror(rc) != NULL);

    if (rc == MMIO_ETRUNCATED)
        check(avail < MMIO_INSN_MAX_LEN);
    if (rc != 0) {
        /* fewer bytes never make a rejected prefix acceptable */
        for (unsigned n = 0; n < avail && n <= MMIO_INSN_MAX_LEN; n++) {
            struct mmio_insn e;
            check(decode_copy(data, n, &e) != 0);
        }
        return 0;
    }

    check(d.len >= 1 && d.len <= MMIO_INSN_MAX_LEN && d.len <= avail);
    check(d.size == 1 || d.size == 2 || d.size == 4 || d.size == 8);
    check(d.dst_size == 1 || d.dst_size == 2 || d.dst_size == 4 || d.dst_size == 8);
    check(d.dst_size >= d.size);
    check(d.reg < 16);
    check(!d.reg_high8 || (d.size == 1 && d.reg < 4));
    check(d.src == MMIO_SRC_REG || (d.src == MMIO_SRC_IMM && d.is_write));
    check(d.ext == MMIO_EXT_NONE ||
          !d.is_write); /* 66 0F B7: movzx r16, r/m16 has size == dst_size */
    check(d.ext != MMIO_EXT_NONE || d.dst_size == d.size);

    /* exactly its own bytes decode the same; one byte fewer is truncated */
    struct mmio_insn e;
    check(decode_copy(data, d.len, &e) == 0);
    check(memcmp(&d, &e, sizeof d) == 0);
    check(decode_copy(data, d.len - 1, &e) == MMIO_ETRUNCATED);

    if (d.is_write) {
        uint64_t v = mmio_store_value(&d, old);
        check((v & ~mask_of(d.size)) == 0);
        if (d.src == MMIO_SRC_REG)
            check(v == (d.reg_high8 ? (old >> 8) & 0xFF : old & mask_of(d.size)));
        else
            check(v == (d.imm & mask_of(d.size)));
    } else {
        uint64_t r = mmio_load_result(&d, old, value);
        uint64_t low = r & mask_of(d.dst_size);
        switch (d.dst_size) {
        case 8:
            break;
        case 4:
            check((r >> 32) == 0);
            break;
        default:
            if (d.reg_high8)
                check((r & ~0xFF00ULL) == (old & ~0xFF00ULL));
            else
                check((r & ~mask_of(d.dst_size)) == (old & ~mask_of(d.dst_size)));
        }
        uint64_t loaded = value & mask_of(d.size);
        if (d.reg_high8)
            check(((r >> 8) & 0xFF) == loaded);
        else if (d.ext == MMIO_EXT_SIGN && ((loaded >> (8 * d.size - 1)) & 1))
            check(low == ((loaded | ~mask_of(d.size)) & mask_of(d.dst_size)));
        else
            check(low == loaded);
    }
    return 0;
}
