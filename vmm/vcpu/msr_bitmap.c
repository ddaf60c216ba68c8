/* MSR bitmap building and lookup (see msr_bitmap.h for the layout). */
#include "vmm/vcpu/msr_bitmap.h"

#include <string.h>

/* The byte offset of the bitmap quarter and the bit index within it, or false when the MSR is
 * outside both ranges. */
static bool locate(uint32_t msr, bool write, unsigned *base, unsigned *bit)
{
    if (msr <= MSR_RANGE_LOW_LAST) {
        *base = write ? MSR_BITMAP_WRITE_LOW : MSR_BITMAP_READ_LOW;
        *bit = msr - MSR_RANGE_LOW_FIRST;
        return true;
    }
    if (msr >= MSR_RANGE_HIGH_FIRST && msr <= MSR_RANGE_HIGH_LAST) {
        *base = write ? MSR_BITMAP_WRITE_HIGH : MSR_BITMAP_READ_HIGH;
        *bit = msr - MSR_RANGE_HIGH_FIRST;
        return true;
    }
    return false;
}

void msr_bitmap_init(uint8_t *bm)
{
    if (bm)
        memset(bm, 0xFF, MSR_BITMAP_BYTES);
}

static void set_exit(uint8_t *bm, unsigned base, unsigned bit, bool exits)
{
    uint8_t mask = (uint8_t)(1u << (bit % 8));
    if (exits)
        bm[base + bit / 8] |= mask;
    else
        bm[base + bit / 8] &= (uint8_t)~mask;
}

int msr_bitmap_allow(uint8_t *bm, uint32_t msr, bool read, bool write)
{
    unsigned rbase, wbase, bit;
    if (!bm || !locate(msr, false, &rbase, &bit) || !locate(msr, true, &wbase, &bit))
        return -1;
    set_exit(bm, rbase, bit, !read);
    set_exit(bm, wbase, bit, !write);
    return 0;
}

bool msr_bitmap_exits(const uint8_t *bm, uint32_t msr, bool write)
{
    unsigned base, bit;
    if (!bm || !locate(msr, write, &base, &bit))
        return true;
    return (bm[base + bit / 8] >> (bit % 8)) & 1u;
}
