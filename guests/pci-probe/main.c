/* pci-probe: looks at the guest's PCI bus the way a firmware or OS does, through configuration
 * mechanism #1 (0xCF8 address, 0xCFC data), and prints what it finds; the end-to-end test
 * (tests/e2e/test_vpci.py) reads its console:
 *
 *   pci-probe: 00:00.0 8086:1918 class 060000
 *   pci-probe: 00:02.0 8086:1912 class 030000
 *   pci-probe: vgpu rev 0x06 subsys 8086:2212 irq pin 1
 *   pci-probe: bytes 0x1912 words 0x0300 past-window 0xffff
 *   pci-probe: vendor after write 0x8086
 *   pci-probe: BAR0 0xf0000000 size 0x1000000 mem64
 *   pci-probe: BAR2 0xe0000000 size 0x2000000 mem64 prefetchable     (24 MiB low GM)
 *   pci-probe: BAR4 io 0xf000 size 0x40
 *   pci-probe: gmch 0x00c0 ggtt 8 MiB stolen 0 MiB bdsm 0x00000000
 *   pci-probe: BAR2 moved to 0xd0000000 and back to 0xe0000000
 *   pci-probe: done, 2 functions
 *
 * Sizing follows what Linux's pci_read_bases does: decoding off, all ones written, the mask
 * read back, the old value and the command register restored.  Exit status 0 if the vGPU is
 * at 00:02.0 and every value read back is self-consistent, 1 otherwise.
 *
 * With `storm=N` on its command line it then maps a page of its RAM at every 2 MiB of its
 * aperture window (GGTT entries through BAR0), moves BAR2 N times around its guest-physical
 * space above 4 GiB (every 8th move to a place the hypervisor must refuse: over BAR0 or the
 * interrupt controllers, or beyond the addresses its CPU has), moves it home, reads each page
 * back through the aperture, unmaps them and prints
 *   pci-probe: storm: 200 BAR2 moves (25 to refused places), 12 aperture pages, 12 read back
 * (tests/e2e/test_vpci.py checks that the hypervisor's free pages are where they were). */
#include "guests/lib/guest.h"
#include "guests/lib/vgpu.h"
#include "guests/lib/x86.h"

#include <inttypes.h>
#include <stdio.h>

#include "arch/x86/pci_regs.h"
#include "arch/x86/regs.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"

/* 16- and 32-bit port I/O: guests/lib/x86.h has only the byte forms. */
static inline void outl(uint16_t port, uint32_t v)
{
    __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}
static inline void outw(uint16_t port, uint16_t v)
{
    __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}
static inline uint32_t inl(uint16_t port)
{
    uint32_t v;
    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
static inline uint16_t inw(uint16_t port)
{
    uint16_t v;
    __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

#define BAR_MOVE_TO 0xD0000000u /* a free spot for the move test, 256 MiB aligned */

static void select_reg(unsigned dev, unsigned fn, unsigned off)
{
    outl(PCI_CONFIG_ADDRESS, PCI_CONFIG_ENABLE | dev << PCI_CONFIG_ADDR_DEV_SHIFT |
                                 fn << PCI_CONFIG_ADDR_FN_SHIFT | (off & PCI_CONFIG_ADDR_REG_MASK));
}

static uint32_t cfg_read32(unsigned dev, unsigned fn, unsigned off)
{
    select_reg(dev, fn, off);
    return inl(PCI_CONFIG_DATA);
}

static uint16_t cfg_read16(unsigned dev, unsigned fn, unsigned off)
{
    select_reg(dev, fn, off);
    return inw((uint16_t)(PCI_CONFIG_DATA + (off & 2)));
}

static uint8_t cfg_read8(unsigned dev, unsigned fn, unsigned off)
{
    select_reg(dev, fn, off);
    return inb((uint16_t)(PCI_CONFIG_DATA + (off & 3)));
}

static void cfg_write32(unsigned dev, unsigned fn, unsigned off, uint32_t v)
{
    select_reg(dev, fn, off);
    outl(PCI_CONFIG_DATA, v);
}

static void cfg_write16(unsigned dev, unsigned fn, unsigned off, uint16_t v)
{
    select_reg(dev, fn, off);
    outw((uint16_t)(PCI_CONFIG_DATA + (off & 2)), v);
}

struct bar {
    uint64_t base, size;
    bool io, is64, prefetch;
};

/* Sizes BAR `n` of dev with decoding off, then puts everything back. */
static struct bar size_bar(unsigned dev, unsigned n)
{
    unsigned off = PCI_BAR_OFFSET(n);
    uint16_t cmd = cfg_read16(dev, 0, PCI_COMMAND);
    cfg_write16(dev, 0, PCI_COMMAND, cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
    struct bar b = { 0 };
    uint32_t lo = cfg_read32(dev, 0, off), hi = 0;
    b.io = lo & PCI_BAR_IO;
    b.is64 = !b.io && (lo & PCI_BAR_MEM_TYPE_MASK) == PCI_BAR_MEM_TYPE_64;
    b.prefetch = !b.io && (lo & PCI_BAR_MEM_PREFETCH);
    cfg_write32(dev, 0, off, 0xFFFFFFFFu);
    uint64_t mask = cfg_read32(dev, 0, off);
    cfg_write32(dev, 0, off, lo);
    if (b.is64) {
        hi = cfg_read32(dev, 0, off + PCI_BAR_STRIDE);
        cfg_write32(dev, 0, off + PCI_BAR_STRIDE, 0xFFFFFFFFu);
        mask |= (uint64_t)cfg_read32(dev, 0, off + PCI_BAR_STRIDE) << 32;
        cfg_write32(dev, 0, off + PCI_BAR_STRIDE, hi);
    } else {
        mask |= 0xFFFFFFFF00000000ULL; /* a 32-bit BAR: the upper half is "all set" */
    }
    cfg_write16(dev, 0, PCI_COMMAND, cmd);
    uint64_t flags = b.io ? PCI_BAR_IO_FLAGS : PCI_BAR_MEM_FLAGS;
    b.base = ((uint64_t)hi << 32 | lo) & ~flags;
    b.size = (mask & ~flags) ? ~(mask & ~flags) + 1 : 0;
    if (b.io) /* x86 I/O BARs: only the low 16 bits of the mask are meaningful */
        b.size &= 0xFFFF;
    return b;
}

static unsigned scan_bus0(void)
{
    unsigned found = 0;
    for (unsigned dev = 0; dev < PCI_DEVICES_PER_BUS; dev++) {
        for (unsigned fn = 0; fn < PCI_FUNCTIONS_PER_DEVICE; fn++) {
            uint32_t id = cfg_read32(dev, fn, PCI_VENDOR_ID);
            if ((id & 0xFFFF) == PCI_VENDOR_NONE) {
                if (fn == 0)
                    break; /* no function 0: no device */
                continue;
            }
            uint32_t class = cfg_read32(dev, fn, PCI_CLASS_REVISION) >> 8;
            printf("pci-probe: 00:%02x.%u %04" PRIx32 ":%04" PRIx32 " class %06" PRIx32 "\n", dev,
                   fn, id & 0xFFFF, id >> 16, class);
            found++;
            if (fn == 0 && !(cfg_read8(dev, 0, PCI_HEADER_TYPE) & PCI_HEADER_MULTIFUNCTION))
                break;
        }
    }
    return found;
}

static void print_bar(unsigned n, const struct bar *b)
{
    if (b->io)
        printf("pci-probe: BAR%u io 0x%" PRIx64 " size 0x%" PRIx64 "\n", n, b->base, b->size);
    else
        printf("pci-probe: BAR%u 0x%" PRIx64 " size 0x%" PRIx64 " %s%s\n", n, b->base, b->size,
               b->is64 ? "mem64" : "mem32", b->prefetch ? " prefetchable" : "");
}

/* Moves BAR2 elsewhere with decoding off, turns decoding on (the hypervisor hears of it),
 * then moves it back. */
static bool move_bar2(uint64_t home)
{
    unsigned off = PCI_BAR_OFFSET(GEN9_PCI_BAR_GMADR);
    uint16_t cmd = cfg_read16(GEN9_PCI_DEV, 0, PCI_COMMAND);
    uint32_t lo = cfg_read32(GEN9_PCI_DEV, 0, off);
    cfg_write16(GEN9_PCI_DEV, 0, PCI_COMMAND, cmd & ~PCI_COMMAND_MEMORY);
    cfg_write32(GEN9_PCI_DEV, 0, off, BAR_MOVE_TO);
    cfg_write16(GEN9_PCI_DEV, 0, PCI_COMMAND, cmd | PCI_COMMAND_MEMORY);
    uint32_t moved = cfg_read32(GEN9_PCI_DEV, 0, off) & ~PCI_BAR_MEM_FLAGS;
    cfg_write16(GEN9_PCI_DEV, 0, PCI_COMMAND, cmd & ~PCI_COMMAND_MEMORY);
    cfg_write32(GEN9_PCI_DEV, 0, off, lo);
    cfg_write16(GEN9_PCI_DEV, 0, PCI_COMMAND, cmd);
    uint32_t back = cfg_read32(GEN9_PCI_DEV, 0, off) & ~PCI_BAR_MEM_FLAGS;
    printf("pci-probe: BAR2 moved to 0x%" PRIx32 " and back to 0x%" PRIx32 "\n", moved, back);
    return moved == BAR_MOVE_TO && back == home;
}

/* ---- the BAR storm ---- */

#define STORM_PAGES         12u /* aperture pages mapped, one per 2 MiB */
#define STORM_PAGE_STRIDE   (2ull << 20)
#define STORM_FIRST         (4ull << 30) /* moves go above 4 GiB ... */
#define STORM_REFUSED_EVERY 8u           /* ... and every 8th one somewhere refused */
#define PAGE_BYTES          4096u

static uint8_t storm_pages[STORM_PAGES][PAGE_BYTES] __attribute__((aligned(PAGE_BYTES)));

/* BAR2 (64-bit) to `base` with decoding off, then decoding on there. */
static void place_bar2(uint64_t base)
{
    unsigned off = PCI_BAR0 + 2 * PCI_BAR_STRIDE;
    uint16_t cmd = cfg_read16(GEN9_PCI_DEV, 0, PCI_COMMAND);
    uint32_t lo = cfg_read32(GEN9_PCI_DEV, 0, off);
    cfg_write16(GEN9_PCI_DEV, 0, PCI_COMMAND, cmd & ~PCI_COMMAND_MEMORY);
    cfg_write32(GEN9_PCI_DEV, 0, off, (uint32_t)base | (lo & PCI_BAR_MEM_FLAGS));
    cfg_write32(GEN9_PCI_DEV, 0, off + PCI_BAR_STRIDE, (uint32_t)(base >> 32));
    cfg_write16(GEN9_PCI_DEV, 0, PCI_COMMAND, cmd | PCI_COMMAND_MEMORY);
}

static unsigned phys_bits(void)
{
    if (x86_cpuid(CPUID_EXT_FIRST, 0).eax < CPUID_ADDR_SIZES)
        return CPUID_PHYS_BITS_DEFAULT;
    return x86_cpuid(CPUID_ADDR_SIZES, 0).eax & CPUID_ADDR_SIZES_PHYS_MASK;
}

static bool storm(uint64_t moves, const struct bar *b0, const struct bar *b2)
{
    static struct vgpu v;
    v.name = "pci-probe";
    v.mmio = (volatile uint8_t *)(uintptr_t)b0->base;
    uint64_t low = vgpu_read32(&v, VGPU_PV(avail_rs.mappable_gmadr.base));
    uint64_t low_size = vgpu_read32(&v, VGPU_PV(avail_rs.mappable_gmadr.size));
    unsigned pages = low_size / STORM_PAGE_STRIDE < STORM_PAGES
                       ? (unsigned)(low_size / STORM_PAGE_STRIDE)
                       : STORM_PAGES;
    bool ok = pages > 0;
    for (unsigned i = 0; i < pages; i++) {
        storm_pages[i][0] = (uint8_t)(0xA0 + i);
        ok &= vgpu_ggtt_write(&v, (uint32_t)((low + i * STORM_PAGE_STRIDE) >> GEN9_GTT_PAGE_SHIFT),
                              gen9_ggtt_pte_encode((uint64_t)(uintptr_t)storm_pages[i]));
    }
    /* Places for a BAR of b2's size above 4 GiB, below the top of what this CPU addresses. */
    uint64_t top = 1ull << phys_bits(), places = (top - STORM_FIRST) / b2->size, refused = 0;
    for (uint64_t m = 0; m < moves; m++) {
        uint64_t base = STORM_FIRST + (m % places) * b2->size;
        if (m % STORM_REFUSED_EVERY == 1) {
            /* Over BAR0 and the interrupt controllers, or past the top: both refused. */
            base = (m / STORM_REFUSED_EVERY) % 2 ? top : b0->base & ~(b2->size - 1);
            refused++;
        }
        place_bar2(base);
    }
    place_bar2(b2->base);
    unsigned back = 0;
    for (unsigned i = 0; i < pages; i++)
        back += *(volatile uint8_t *)(uintptr_t)(b2->base + low + i * STORM_PAGE_STRIDE) ==
                0xA0 + i;
    for (unsigned i = 0; i < pages; i++)
        ok &= vgpu_ggtt_write(&v, (uint32_t)((low + i * STORM_PAGE_STRIDE) >> GEN9_GTT_PAGE_SHIFT),
                              0);
    printf("pci-probe: storm: %" PRIu64 " BAR2 moves (%" PRIu64
           " to refused places), %u aperture pages, "
           "%u read back\n",
           moves, refused, pages, back);
    return ok && back == pages;
}

int guest_main(const struct tessera_boot_info *boot)
{
    bool ok = true;
    unsigned found = scan_bus0();
    uint32_t id = cfg_read32(GEN9_PCI_DEV, 0, PCI_VENDOR_ID);
    uint32_t class = cfg_read32(GEN9_PCI_DEV, 0, PCI_CLASS_REVISION);
    if ((id & 0xFFFF) != PCI_VENDOR_INTEL || class >> 24 != PCI_BASE_CLASS_DISPLAY) {
        printf("pci-probe: no Intel display device at 00:02.0 (id 0x%" PRIx32 ")\n", id);
        return 1;
    }
    printf("pci-probe: vgpu rev 0x%02x subsys %04x:%04x irq pin %u\n", (unsigned)(class & 0xFF),
           cfg_read16(GEN9_PCI_DEV, 0, PCI_SUBSYSTEM_VENDOR_ID),
           cfg_read16(GEN9_PCI_DEV, 0, PCI_SUBSYSTEM_ID),
           cfg_read8(GEN9_PCI_DEV, 0, PCI_INTERRUPT_PIN));

    /* The data window's byte lanes: the device id a byte at a time (0xCFE, 0xCFF), the class
     * as a word at 0xCFE, and a word at 0xCFF whose upper byte is past the window. */
    uint16_t by_bytes = (uint16_t)(cfg_read8(GEN9_PCI_DEV, 0, PCI_DEVICE_ID) |
                                   cfg_read8(GEN9_PCI_DEV, 0, PCI_DEVICE_ID + 1) << 8);
    uint16_t class_word = cfg_read16(GEN9_PCI_DEV, 0, PCI_CLASS_DEVICE);
    select_reg(GEN9_PCI_DEV, 0, PCI_VENDOR_ID);
    uint16_t past = inw(PCI_CONFIG_DATA + 3);
    printf("pci-probe: bytes 0x%04x words 0x%04x past-window 0x%04x\n", by_bytes, class_word, past);
    ok &= by_bytes == id >> 16 && class_word == class >> 16 && past == (0xFF00 | (id >> 24));

    /* Read-only bits ignore writes. */
    cfg_write16(GEN9_PCI_DEV, 0, PCI_VENDOR_ID, 0x1234);
    uint16_t vendor = cfg_read16(GEN9_PCI_DEV, 0, PCI_VENDOR_ID);
    printf("pci-probe: vendor after write 0x%04x\n", vendor);
    ok &= vendor == PCI_VENDOR_INTEL;

    struct bar b0 = size_bar(GEN9_PCI_DEV, GEN9_PCI_BAR_GTTMMADR);
    struct bar b2 = size_bar(GEN9_PCI_DEV, GEN9_PCI_BAR_GMADR);
    struct bar b4 = size_bar(GEN9_PCI_DEV, GEN9_PCI_BAR_IOBAR);
    print_bar(GEN9_PCI_BAR_GTTMMADR, &b0);
    print_bar(GEN9_PCI_BAR_GMADR, &b2);
    print_bar(GEN9_PCI_BAR_IOBAR, &b4);
    ok &= b0.size && b2.size && b4.size && b0.is64 && b2.is64 && b2.prefetch && b4.io;
    /* Sizing put the BARs back where they were. */
    ok &= size_bar(GEN9_PCI_DEV, GEN9_PCI_BAR_GTTMMADR).base == b0.base &&
          size_bar(GEN9_PCI_DEV, GEN9_PCI_BAR_GMADR).base == b2.base;

    uint16_t gmch = cfg_read16(GEN9_PCI_DEV, 0, GEN9_PCI_GMCH_CTRL);
    unsigned ggms = (gmch >> GEN9_GMCH_GGMS_SHIFT) & GEN9_GMCH_GGMS_MASK;
    unsigned gms = (gmch >> GEN9_GMCH_GMS_SHIFT) & GEN9_GMCH_GMS_MASK;
    uint32_t bdsm = cfg_read32(GEN9_PCI_DEV, 0, GEN9_PCI_BDSM);
    /* i915's gen8_get_total_gtt_size: GGMS n means 1 << n MiB; GMS counts 32 MiB units. */
    printf("pci-probe: gmch 0x%04x ggtt %u MiB stolen %u MiB bdsm 0x%08" PRIx32 "\n", gmch,
           ggms ? 1u << ggms : 0, gms * 32, bdsm);

    ok &= move_bar2(b2.base);
    uint64_t moves;
    if (guest_cmdline_u64(boot, "storm", &moves))
        ok &= storm(moves, &b0, &b2);
    printf("pci-probe: done, %u functions%s\n", found, ok ? "" : ", MISMATCHES");
    return ok ? 0 : 1;
}
