/* The VMX MSR bitmap (Intel SDM Vol. 3C §25.6.9 "MSR-Bitmap Address"; 2023 numbering, §24.6.9
 * before): one 4 KiB page of four 1 KiB bitmaps.  A set bit makes RDMSR/WRMSR of that MSR
 * exit; MSRs outside the two covered ranges always exit (§26.1.3 "Instructions That Cause VM
 * Exits Conditionally").  Used with the "use MSR bitmaps" primary processor-based control. */
#ifndef TESSERA_VMM_MSR_BITMAP_H
#define TESSERA_VMM_MSR_BITMAP_H

#include <stdbool.h>
#include <stdint.h>

#define MSR_BITMAP_BYTES      4096
#define MSR_BITMAP_READ_LOW   0    /* byte offset: reads of MSRs 0x00000000..0x00001FFF */
#define MSR_BITMAP_READ_HIGH  1024 /* reads of MSRs 0xC0000000..0xC0001FFF */
#define MSR_BITMAP_WRITE_LOW  2048 /* writes of the low range */
#define MSR_BITMAP_WRITE_HIGH 3072 /* writes of the high range */
#define MSR_RANGE_LOW_FIRST   0x00000000u
#define MSR_RANGE_LOW_LAST    0x00001FFFu
#define MSR_RANGE_HIGH_FIRST  0xC0000000u
#define MSR_RANGE_HIGH_LAST   0xC0001FFFu

/* Sets every bit: every RDMSR/WRMSR exits (the allow-list starts empty). */
void msr_bitmap_init(uint8_t *bm);

/* Sets the policy for one MSR: reads pass through when `read`, else exit; writes likewise with
 * `write` (so allow(msr, false, false) intercepts it again).  Returns 0, or -1 for an MSR
 * outside the two ranges (those always exit; the bitmap is not changed) or a NULL bitmap. */
int msr_bitmap_allow(uint8_t *bm, uint32_t msr, bool read, bool write);

/* Whether a read (write=false) or write of `msr` exits under this bitmap. */
bool msr_bitmap_exits(const uint8_t *bm, uint32_t msr, bool write);

#endif
