/* vpci mechanism (vmm/vpci/vpci.c) on a hand-built bus: the CONFIG_ADDRESS latch, byte lanes
 * of the data window, absent functions, write masks, BAR sizing for 32-bit, 64-bit and I/O
 * BARs, the BAR callback, and the builder's argument checks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "vmm/vpci/vpci.h"

#define CF8 PCI_CONFIG_ADDRESS
#define CFC PCI_CONFIG_DATA

/* A test function at 00:03.0: ids 0x1AF4:0x1234, a 4 KiB 32-bit BAR0 at 0xC0000000, a 1 MiB
 * 64-bit prefetchable BAR2 at 0x1_0000_0000, a 32-port I/O BAR4 at 0x1000, command IO|MEM
 * writable, a scratch dword at 0x40 with only its middle 16 bits writable. */
#define T_DEV           3
#define T_VENDOR        0x1AF4
#define T_DEVICE        0x1234
#define T_BAR0          0xC0000000ULL
#define T_BAR0_SIZE     0x1000ULL
#define T_BAR2          0x100000000ULL
#define T_BAR2_SIZE     0x100000ULL
#define T_BAR4          0x1000ULL
#define T_BAR4_SIZE     32ULL
#define T_SCRATCH       0x40
#define T_SCRATCH_VALUE 0xA1B2C3D4u
#define T_SCRATCH_WMASK 0x00FFFF00u

struct events {
    unsigned n;
    struct vpci_bar_event ev[32];
};

static struct vpci bus;
static struct events events;

static void record(void *ctx, const struct vpci_bar_event *ev)
{
    struct events *e = ctx;
    if (e->n < sizeof e->ev / sizeof e->ev[0])
        e->ev[e->n] = *ev;
    e->n++;
}

static int setup(void **state)
{
    (void)state;
    memset(&events, 0, sizeof events);
    vpci_init(&bus);
    struct vpci_func *f = vpci_add_func(&bus, T_DEV, 0, NULL);
    assert_non_null(f);
    assert_int_equal(vpci_func_set(f, PCI_VENDOR_ID, 2, T_VENDOR, 0), VPCI_OK);
    assert_int_equal(vpci_func_set(f, PCI_DEVICE_ID, 2, T_DEVICE, 0), VPCI_OK);
    assert_int_equal(vpci_func_set(f, PCI_COMMAND, 2, 0, PCI_COMMAND_IO | PCI_COMMAND_MEMORY),
                     VPCI_OK);
    assert_int_equal(vpci_func_set(f, T_SCRATCH, 4, T_SCRATCH_VALUE, T_SCRATCH_WMASK), VPCI_OK);
    assert_int_equal(vpci_func_set_bar(f, 0, VPCI_BAR_MEM32, false, T_BAR0_SIZE, T_BAR0), VPCI_OK);
    assert_int_equal(vpci_func_set_bar(f, 2, VPCI_BAR_MEM64, true, T_BAR2_SIZE, T_BAR2), VPCI_OK);
    assert_int_equal(vpci_func_set_bar(f, 4, VPCI_BAR_IO, false, T_BAR4_SIZE, T_BAR4), VPCI_OK);
    vpci_set_bar_callback(&bus, record, &events);
    return 0;
}

static uint32_t addr(unsigned bus_nr, unsigned dev, unsigned fn, unsigned reg)
{
    return PCI_CONFIG_ENABLE | bus_nr << 16 | dev << 11 | fn << 8 | reg;
}

static void select_reg(unsigned dev, unsigned reg)
{
    vpci_io_write(&bus, CF8, 4, addr(0, dev, 0, reg));
}

/* ---- The address latch ---- */

static void test_latch_reads_back_kept_bits(void **state)
{
    (void)state;
    assert_int_equal(vpci_io_read(&bus, CF8, 4), 0);
    vpci_io_write(&bus, CF8, 4, 0xFFFFFFFFu);
    /* reserved 30:24 and the two low bits read as 0 */
    assert_int_equal(vpci_io_read(&bus, CF8, 4), 0x80FFFFFCu);
    vpci_io_write(&bus, CF8, 4, addr(0, T_DEV, 0, 0x10) | 0x3);
    assert_int_equal(vpci_io_read(&bus, CF8, 4), addr(0, T_DEV, 0, 0x10));
}

static void test_latch_only_32bit(void **state)
{
    (void)state;
    select_reg(T_DEV, 0);
    assert_false(vpci_claims_port(CF8, 1));
    assert_false(vpci_claims_port(CF8, 2));
    assert_false(vpci_claims_port(CF8 + 1, 1)); /* 0xCF9, reset control on a PC */
    assert_false(vpci_claims_port(CF8 + 2, 2));
    assert_true(vpci_claims_port(CF8, 4));
    for (unsigned p = CFC; p < CFC + 4; p++) {
        assert_true(vpci_claims_port((uint16_t)p, 1));
        assert_true(vpci_claims_port((uint16_t)p, 2));
        assert_true(vpci_claims_port((uint16_t)p, 4));
    }
    assert_false(vpci_claims_port(CFC + 4, 1));
    assert_false(vpci_claims_port(CFC - 1, 1));
    /* a byte or word at 0xCF8 is not the latch: it reads all ones and leaves it alone */
    assert_int_equal(vpci_io_read(&bus, CF8, 1), 0xFF);
    assert_int_equal(vpci_io_read(&bus, CF8, 2), 0xFFFF);
    vpci_io_write(&bus, CF8, 1, 0);
    vpci_io_write(&bus, CF8, 2, 0);
    assert_int_equal(vpci_io_read(&bus, CF8, 4), addr(0, T_DEV, 0, 0));
}

static void test_enable_bit_clear_means_no_config_cycle(void **state)
{
    (void)state;
    vpci_io_write(&bus, CF8, 4, addr(0, T_DEV, 0, 0) & ~PCI_CONFIG_ENABLE);
    assert_int_equal(vpci_io_read(&bus, CFC, 4), 0xFFFFFFFFu);
    assert_int_equal(vpci_io_read(&bus, CFC, 2), 0xFFFF);
    vpci_io_write(&bus, CF8, 4, addr(0, T_DEV, 0, T_SCRATCH) & ~PCI_CONFIG_ENABLE);
    vpci_io_write(&bus, CFC, 4, 0);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, T_SCRATCH, 4), T_SCRATCH_VALUE);
}

/* ---- Data window byte lanes ---- */

static void test_dword_read(void **state)
{
    (void)state;
    select_reg(T_DEV, PCI_VENDOR_ID);
    assert_int_equal(vpci_io_read(&bus, CFC, 4), (uint32_t)T_DEVICE << 16 | T_VENDOR);
}

static void test_byte_lanes(void **state)
{
    (void)state;
    select_reg(T_DEV, T_SCRATCH);
    assert_int_equal(vpci_io_read(&bus, CFC + 0, 1), 0xD4);
    assert_int_equal(vpci_io_read(&bus, CFC + 1, 1), 0xC3);
    assert_int_equal(vpci_io_read(&bus, CFC + 2, 1), 0xB2);
    assert_int_equal(vpci_io_read(&bus, CFC + 3, 1), 0xA1);
    assert_int_equal(vpci_io_read(&bus, CFC + 0, 2), 0xC3D4);
    assert_int_equal(vpci_io_read(&bus, CFC + 1, 2), 0xB2C3); /* unaligned word inside */
    assert_int_equal(vpci_io_read(&bus, CFC + 2, 2), 0xA1B2);
}

static void test_access_past_window_reads_ones(void **state)
{
    (void)state;
    select_reg(T_DEV, T_SCRATCH);
    assert_int_equal(vpci_io_read(&bus, CFC + 3, 2), 0xFFA1);
    assert_int_equal(vpci_io_read(&bus, CFC + 2, 4), 0xFFFFA1B2u);
    assert_int_equal(vpci_io_read(&bus, CFC + 1, 4), 0xFFA1B2C3u);
    /* and writes past it do not spill into the next dword */
    vpci_io_write(&bus, CFC + 3, 2, 0x5555);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, T_SCRATCH + 4, 4), 0);
}

static void test_byte_write_lane(void **state)
{
    (void)state;
    select_reg(T_DEV, T_SCRATCH);
    vpci_io_write(&bus, CFC + 2, 1, 0x00);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, T_SCRATCH, 4), 0xA100C3D4u);
    vpci_io_write(&bus, CFC + 1, 2, 0x7766);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, T_SCRATCH, 4), 0xA17766D4u);
}

static void test_register_bits_select_dword(void **state)
{
    (void)state;
    vpci_io_write(&bus, CF8, 4, addr(0, T_DEV, 0, T_SCRATCH + 2)); /* bits 1:0 dropped */
    assert_int_equal(vpci_io_read(&bus, CFC, 4), T_SCRATCH_VALUE);
}

/* ---- Absent functions ---- */

static void test_absent_functions_read_ones(void **state)
{
    (void)state;
    const uint32_t absent[][3] = { { 0, 0, 0 },
                                   { 0, T_DEV, 1 },
                                   { 0, 31, 7 },
                                   { 1, T_DEV, 0 },
                                   { 255, T_DEV, 0 } };
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        vpci_io_write(&bus, CF8, 4, addr(absent[i][0], absent[i][1], absent[i][2], 0));
        assert_int_equal(vpci_io_read(&bus, CFC, 4), 0xFFFFFFFFu);
        assert_int_equal(vpci_io_read(&bus, CFC + 2, 2), 0xFFFF);
        assert_int_equal(vpci_io_read(&bus, CFC + 3, 1), 0xFF);
        vpci_io_write(&bus, CFC, 4, 0); /* goes nowhere */
    }
    assert_null(vpci_find(&bus, 1, T_DEV, 0));
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, PCI_VENDOR_ID, 2), T_VENDOR);
    assert_int_equal(events.n, 0);
}

static void test_offsets_past_space_read_ones(void **state)
{
    (void)state;
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, 0xFF, 2), 0xFF00);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, 0x100, 4), 0xFFFFFFFFu);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, 0, 3), 0xFFFFFFFFu); /* bad width */
    vpci_cfg_write(&bus, 0, T_DEV, 0, 0xFE, 4, 0); /* must not write past the array */
}

/* ---- Read-only bits ---- */

static void test_read_only_ignores_writes(void **state)
{
    (void)state;
    select_reg(T_DEV, PCI_VENDOR_ID);
    vpci_io_write(&bus, CFC, 4, 0);
    vpci_io_write(&bus, CFC + 1, 1, 0x55);
    assert_int_equal(vpci_io_read(&bus, CFC, 4), (uint32_t)T_DEVICE << 16 | T_VENDOR);
    /* an unimplemented register stays 0 */
    vpci_cfg_write(&bus, 0, T_DEV, 0, 0x80, 4, 0xFFFFFFFFu);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, 0x80, 4), 0);
}

static void test_write_mask_per_bit(void **state)
{
    (void)state;
    vpci_cfg_write(&bus, 0, T_DEV, 0, T_SCRATCH, 4, 0);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, T_SCRATCH, 4),
                     T_SCRATCH_VALUE & ~T_SCRATCH_WMASK);
    vpci_cfg_write(&bus, 0, T_DEV, 0, T_SCRATCH, 4, 0xFFFFFFFFu);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, T_SCRATCH, 4),
                     T_SCRATCH_VALUE | T_SCRATCH_WMASK);
    /* command: bits beyond IO|MEM are read-only */
    vpci_cfg_write(&bus, 0, T_DEV, 0, PCI_COMMAND, 2, 0xFFFF);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, PCI_COMMAND, 2),
                     PCI_COMMAND_IO | PCI_COMMAND_MEMORY);
}

/* ---- BAR sizing ---- */

static uint32_t size_probe(unsigned off)
{
    uint32_t old = vpci_cfg_read(&bus, 0, T_DEV, 0, off, 4);
    vpci_cfg_write(&bus, 0, T_DEV, 0, off, 4, 0xFFFFFFFFu);
    uint32_t mask = vpci_cfg_read(&bus, 0, T_DEV, 0, off, 4);
    vpci_cfg_write(&bus, 0, T_DEV, 0, off, 4, old);
    return mask;
}

static void test_bar_initial_values(void **state)
{
    (void)state;
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, PCI_BAR0, 4), (uint32_t)T_BAR0);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, PCI_BAR0 + 8, 4),
                     PCI_BAR_MEM_TYPE_64 | PCI_BAR_MEM_PREFETCH);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, PCI_BAR0 + 12, 4), 1);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, PCI_BAR0 + 16, 4),
                     (uint32_t)T_BAR4 | PCI_BAR_IO);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, PCI_BAR0 + 4, 4), 0); /* BAR1 absent */
    uint64_t base = 0;
    assert_int_equal(vpci_bar_base(&bus, T_DEV, 0, 2, &base), VPCI_OK);
    assert_true(base == T_BAR2);
    assert_int_equal(vpci_bar_base(&bus, T_DEV, 0, 3, &base), VPCI_E_ARG); /* upper half */
    assert_int_equal(vpci_bar_base(&bus, T_DEV, 0, 1, &base), VPCI_E_ARG);
    assert_int_equal(vpci_bar_base(&bus, T_DEV, 1, 0, &base), VPCI_E_ARG);
}

static void test_bar_sizing_mem32(void **state)
{
    (void)state;
    assert_int_equal(size_probe(PCI_BAR0), (uint32_t) ~(T_BAR0_SIZE - 1));
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, PCI_BAR0, 4), (uint32_t)T_BAR0);
    /* an unimplemented BAR sizes to 0 */
    assert_int_equal(size_probe(PCI_BAR0 + 4), 0);
    assert_int_equal(size_probe(PCI_BAR0 + 20), 0);
}

static void test_bar_sizing_mem64(void **state)
{
    (void)state;
    uint32_t lo = size_probe(PCI_BAR0 + 8), hi = size_probe(PCI_BAR0 + 12);
    assert_int_equal(lo,
                     (uint32_t) ~(T_BAR2_SIZE - 1) | PCI_BAR_MEM_TYPE_64 | PCI_BAR_MEM_PREFETCH);
    assert_int_equal(hi, 0xFFFFFFFFu);
    uint64_t mask = ((uint64_t)hi << 32 | lo) & ~(uint64_t)PCI_BAR_MEM_FLAGS;
    assert_true(~mask + 1 == T_BAR2_SIZE);
    uint64_t base = 0;
    assert_int_equal(vpci_bar_base(&bus, T_DEV, 0, 2, &base), VPCI_OK);
    assert_true(base == T_BAR2);
}

static void test_bar_sizing_mem64_above_4g(void **state)
{
    (void)state;
    struct vpci_func *f = vpci_add_func(&bus, 4, 0, NULL);
    assert_non_null(f);
    assert_int_equal(vpci_func_set_bar(f, 0, VPCI_BAR_MEM64, false, 1ULL << 33, 1ULL << 34),
                     VPCI_OK);
    vpci_cfg_write(&bus, 0, 4, 0, PCI_BAR0, 4, 0xFFFFFFFFu);
    vpci_cfg_write(&bus, 0, 4, 0, PCI_BAR0 + 4, 4, 0xFFFFFFFFu);
    assert_int_equal(vpci_cfg_read(&bus, 0, 4, 0, PCI_BAR0, 4), PCI_BAR_MEM_TYPE_64);
    assert_int_equal(vpci_cfg_read(&bus, 0, 4, 0, PCI_BAR0 + 4, 4), 0xFFFFFFFEu);
}

static void test_bar_sizing_io(void **state)
{
    (void)state;
    assert_int_equal(size_probe(PCI_BAR0 + 16), (uint32_t) ~(T_BAR4_SIZE - 1) | PCI_BAR_IO);
    assert_int_equal(vpci_cfg_read(&bus, 0, T_DEV, 0, PCI_BAR0 + 16, 4),
                     (uint32_t)T_BAR4 | PCI_BAR_IO);
}

static void test_bar_sizing_through_ports(void **state)
{
    (void)state;
    select_reg(T_DEV, PCI_BAR0);
    vpci_io_write(&bus, CFC, 4, 0xFFFFFFFFu);
    assert_int_equal(vpci_io_read(&bus, CFC, 4), (uint32_t) ~(T_BAR0_SIZE - 1));
    /* a byte-wide write to the BAR's top lane moves only those bits */
    vpci_io_write(&bus, CFC, 4, (uint32_t)T_BAR0);
    vpci_io_write(&bus, CFC + 3, 1, 0xD0);
    assert_int_equal(vpci_io_read(&bus, CFC, 4), 0xD0000000u);
    /* type bits cannot be written */
    vpci_io_write(&bus, CFC, 1, 0x0F);
    assert_int_equal(vpci_io_read(&bus, CFC, 4), 0xD0000000u);
}

/* ---- The BAR callback ---- */

static void test_bar_callback_on_move_and_decode(void **state)
{
    (void)state;
    vpci_cfg_write(&bus, 0, T_DEV, 0, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
    /* memory decode on: BAR0 and BAR2 report, the I/O BAR does not */
    assert_int_equal(events.n, 2);
    assert_int_equal(events.ev[0].bar, 0);
    assert_true(events.ev[0].decode && !events.ev[0].io);
    assert_true(events.ev[0].base == T_BAR0 && events.ev[0].size == T_BAR0_SIZE);
    assert_int_equal(events.ev[0].dev, T_DEV);
    assert_int_equal(events.ev[1].bar, 2);
    assert_true(events.ev[1].base == T_BAR2 && events.ev[1].size == T_BAR2_SIZE);

    events.n = 0;
    vpci_cfg_write(&bus, 0, T_DEV, 0, PCI_BAR0 + 8, 4, 0x80000000u);
    assert_int_equal(events.n, 1);
    assert_int_equal(events.ev[0].bar, 2);
    assert_true(events.ev[0].base == 0x180000000ULL && events.ev[0].decode);
    vpci_cfg_write(&bus, 0, T_DEV, 0, PCI_BAR0 + 12, 4, 0);
    assert_int_equal(events.n, 2);
    assert_true(events.ev[1].base == 0x80000000ULL);

    /* rewriting the same value or touching other registers says nothing */
    events.n = 0;
    vpci_cfg_write(&bus, 0, T_DEV, 0, PCI_BAR0 + 8, 4, 0x80000000u);
    vpci_cfg_write(&bus, 0, T_DEV, 0, T_SCRATCH, 4, 0);
    vpci_cfg_write(&bus, 0, T_DEV, 0, PCI_VENDOR_ID, 4, 0);
    assert_int_equal(events.n, 0);

    /* I/O decode on: only the I/O BAR */
    vpci_cfg_write(&bus, 0, T_DEV, 0, PCI_COMMAND, 2, PCI_COMMAND_MEMORY | PCI_COMMAND_IO);
    assert_int_equal(events.n, 1);
    assert_true(events.ev[0].io && events.ev[0].bar == 4 && events.ev[0].base == T_BAR4 &&
                events.ev[0].size == T_BAR4_SIZE);
}

static void test_bar_callback_sizing_with_decode_off(void **state)
{
    (void)state;
    size_probe(PCI_BAR0);
    /* the all-ones pattern, then back: two reports, both with decode off */
    assert_int_equal(events.n, 2);
    assert_false(events.ev[0].decode);
    assert_true(events.ev[0].base == (~(T_BAR0_SIZE - 1) & 0xFFFFFFFFULL));
    assert_true(events.ev[1].base == T_BAR0 && !events.ev[1].decode);
}

static void test_no_callback_is_fine(void **state)
{
    (void)state;
    vpci_set_bar_callback(&bus, NULL, NULL);
    vpci_cfg_write(&bus, 0, T_DEV, 0, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
    vpci_cfg_write(&bus, 0, T_DEV, 0, PCI_BAR0, 4, 0xFFFFFFFFu);
    assert_int_equal(events.n, 0);
}

/* ---- Building ---- */

static void test_add_func_errors(void **state)
{
    (void)state;
    int e = 0;
    assert_null(vpci_add_func(&bus, T_DEV, 0, &e));
    assert_int_equal(e, VPCI_E_EXISTS);
    assert_null(vpci_add_func(&bus, 32, 0, &e));
    assert_int_equal(e, VPCI_E_ARG);
    assert_null(vpci_add_func(&bus, 0, 8, &e));
    assert_int_equal(e, VPCI_E_ARG);
    for (unsigned fn = 1; fn < VPCI_MAX_FUNCS; fn++)
        assert_non_null(vpci_add_func(&bus, T_DEV, fn, &e));
    assert_null(vpci_add_func(&bus, 9, 0, &e));
    assert_int_equal(e, VPCI_E_FULL);
    assert_string_equal(vpci_strerror(VPCI_E_FULL), "no room for another function");
}

static void test_func_set_errors(void **state)
{
    (void)state;
    struct vpci_func *f = vpci_find(&bus, 0, T_DEV, 0);
    assert_int_equal(vpci_func_set(f, 0x41, 2, 0, 0), VPCI_E_ARG);         /* misaligned */
    assert_int_equal(vpci_func_set(f, 0x40, 3, 0, 0), VPCI_E_ARG);         /* bad width */
    assert_int_equal(vpci_func_set(f, 0xFE, 4, 0, 0), VPCI_E_ARG);         /* past the end */
    assert_int_equal(vpci_func_set(f, PCI_BAR0 + 4, 4, 0, 0), VPCI_E_ARG); /* a BAR */
    assert_int_equal(vpci_func_set(NULL, 0x40, 4, 0, 0), VPCI_E_ARG);
}

static void test_set_bar_errors(void **state)
{
    (void)state;
    struct vpci_func *f = vpci_add_func(&bus, 5, 0, NULL);
    assert_non_null(f);
    assert_int_equal(vpci_func_set_bar(f, 6, VPCI_BAR_MEM32, false, 4096, 0), VPCI_E_ARG);
    assert_int_equal(vpci_func_set_bar(f, 0, VPCI_BAR_NONE, false, 4096, 0), VPCI_E_ARG);
    assert_int_equal(vpci_func_set_bar(f, 0, VPCI_BAR_MEM32, false, 3000, 0), VPCI_E_BAR);
    assert_int_equal(vpci_func_set_bar(f, 0, VPCI_BAR_MEM32, false, 8, 0), VPCI_E_BAR);
    assert_int_equal(vpci_func_set_bar(f, 0, VPCI_BAR_MEM32, false, 4096, 0x800), VPCI_E_BAR);
    assert_int_equal(vpci_func_set_bar(f, 0, VPCI_BAR_MEM32, false, 4096, 1ULL << 32), VPCI_E_BAR);
    assert_int_equal(vpci_func_set_bar(f, 0, VPCI_BAR_IO, false, 512, 0), VPCI_E_BAR);
    assert_int_equal(vpci_func_set_bar(f, 0, VPCI_BAR_IO, true, 16, 0), VPCI_E_BAR);
    assert_int_equal(vpci_func_set_bar(f, 0, VPCI_BAR_IO, false, 16, 0x10000), VPCI_E_BAR);
    assert_int_equal(vpci_func_set_bar(f, 5, VPCI_BAR_MEM64, false, 4096, 0), VPCI_E_BAR);
    assert_int_equal(vpci_func_set_bar(f, 1, VPCI_BAR_MEM64, false, 4096, 0), VPCI_OK);
    assert_int_equal(vpci_func_set_bar(f, 2, VPCI_BAR_MEM32, false, 4096, 0),
                     VPCI_E_BAR); /* upper half */
    assert_int_equal(vpci_func_set_bar(f, 1, VPCI_BAR_MEM32, false, 4096, 0),
                     VPCI_E_BAR); /* taken */
    assert_int_equal(vpci_func_set_bar(f, 0, VPCI_BAR_MEM64, false, 4096, 0),
                     VPCI_E_BAR); /* next taken */
    assert_int_equal(vpci_func_set_bar(f, 0, VPCI_BAR_MEM32, false, 4096, 0), VPCI_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_latch_reads_back_kept_bits, setup),
        cmocka_unit_test_setup(test_latch_only_32bit, setup),
        cmocka_unit_test_setup(test_enable_bit_clear_means_no_config_cycle, setup),
        cmocka_unit_test_setup(test_dword_read, setup),
        cmocka_unit_test_setup(test_byte_lanes, setup),
        cmocka_unit_test_setup(test_access_past_window_reads_ones, setup),
        cmocka_unit_test_setup(test_byte_write_lane, setup),
        cmocka_unit_test_setup(test_register_bits_select_dword, setup),
        cmocka_unit_test_setup(test_absent_functions_read_ones, setup),
        cmocka_unit_test_setup(test_offsets_past_space_read_ones, setup),
        cmocka_unit_test_setup(test_read_only_ignores_writes, setup),
        cmocka_unit_test_setup(test_write_mask_per_bit, setup),
        cmocka_unit_test_setup(test_bar_initial_values, setup),
        cmocka_unit_test_setup(test_bar_sizing_mem32, setup),
        cmocka_unit_test_setup(test_bar_sizing_mem64, setup),
        cmocka_unit_test_setup(test_bar_sizing_mem64_above_4g, setup),
        cmocka_unit_test_setup(test_bar_sizing_io, setup),
        cmocka_unit_test_setup(test_bar_sizing_through_ports, setup),
        cmocka_unit_test_setup(test_bar_callback_on_move_and_decode, setup),
        cmocka_unit_test_setup(test_bar_callback_sizing_with_decode_off, setup),
        cmocka_unit_test_setup(test_no_callback_is_fine, setup),
        cmocka_unit_test_setup(test_add_func_errors, setup),
        cmocka_unit_test_setup(test_func_set_errors, setup),
        cmocka_unit_test_setup(test_set_bar_errors, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
