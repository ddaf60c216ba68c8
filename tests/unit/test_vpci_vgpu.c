/* The guest's PCI bus as built by vgpu_pci_build (vmm/vpci/vgpu_pci.c): the host bridge and
 * the vGPU's identity, BARs at the documented defaults and their sizes, GMCH control and BDSM
 * as i915 decodes them, what the guest may and may not change, and the aperture rounding. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "vmm/vpci/pch_pci.h"
#include "vmm/vpci/vgpu_pci.h"

#define MIB          (1ULL << 20)
#define T_LOW_GM_MIB 48 /* rounds up to a 64 MiB aperture window */

static struct vpci bus;

static int setup(void **state)
{
    (void)state;
    assert_int_equal(vgpu_pci_build(&bus, T_LOW_GM_MIB), VPCI_OK);
    return 0;
}

static uint32_t gpu(unsigned off, unsigned width)
{
    return vpci_cfg_read(&bus, 0, VGPU_PCI_DEV, VGPU_PCI_FN, off, width);
}

static void gpu_write(unsigned off, unsigned width, uint32_t v)
{
    vpci_cfg_write(&bus, 0, VGPU_PCI_DEV, VGPU_PCI_FN, off, width, v);
}

/* Linux's way: all ones to the low (and high) half, read back, restore. */
static uint64_t bar_size(unsigned bar, bool is64)
{
    unsigned off = PCI_BAR0 + bar * PCI_BAR_STRIDE;
    uint32_t lo = gpu(off, 4), hi = is64 ? gpu(off + 4, 4) : 0;
    gpu_write(off, 4, 0xFFFFFFFFu);
    uint64_t mask = gpu(off, 4);
    if (is64) {
        gpu_write(off + 4, 4, 0xFFFFFFFFu);
        mask |= (uint64_t)gpu(off + 4, 4) << 32;
        gpu_write(off + 4, 4, hi);
    } else {
        mask |= 0xFFFFFFFF00000000ULL;
    }
    gpu_write(off, 4, lo);
    uint64_t flags = (lo & PCI_BAR_IO) ? PCI_BAR_IO_FLAGS : PCI_BAR_MEM_FLAGS;
    return ~(mask & ~flags) + 1;
}

static void test_host_bridge_identity(void **state)
{
    (void)state;
    unsigned d = HOSTBRIDGE_PCI_DEV, f = HOSTBRIDGE_PCI_FN;
    assert_int_equal(vpci_cfg_read(&bus, 0, d, f, PCI_VENDOR_ID, 4), 0x19188086u);
    assert_int_equal(vpci_cfg_read(&bus, 0, d, f, PCI_CLASS_REVISION, 4),
                     0x06000000u | HOSTBRIDGE_PCI_REVISION);
    assert_int_equal(vpci_cfg_read(&bus, 0, d, f, PCI_HEADER_TYPE, 1), 0);
    for (unsigned b = 0; b < PCI_MAX_BARS; b++)
        assert_int_equal(vpci_cfg_read(&bus, 0, d, f, PCI_BAR0 + 4 * b, 4), 0);
    /* fixed: the guest cannot turn the bridge off */
    vpci_cfg_write(&bus, 0, d, f, PCI_COMMAND, 2, 0);
    assert_int_equal(vpci_cfg_read(&bus, 0, d, f, PCI_COMMAND, 2),
                     PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
}

static void test_only_two_functions(void **state)
{
    (void)state;
    unsigned found = 0;
    for (unsigned dev = 0; dev < PCI_DEVICES_PER_BUS; dev++)
        for (unsigned fn = 0; fn < PCI_FUNCTIONS_PER_DEVICE; fn++)
            if (vpci_cfg_read(&bus, 0, dev, fn, PCI_VENDOR_ID, 2) != PCI_VENDOR_NONE)
                found++;
    assert_int_equal(found, 2);
    assert_int_equal(vpci_cfg_read(&bus, 0, 1, 0, PCI_VENDOR_ID, 4), 0xFFFFFFFFu);
}

static void test_vgpu_identity(void **state)
{
    (void)state;
    assert_int_equal(gpu(PCI_VENDOR_ID, 2), 0x8086);
    assert_int_equal(gpu(PCI_DEVICE_ID, 2), 0x1912);
    assert_int_equal(gpu(PCI_CLASS_REVISION, 4), 0x03000006u);
    assert_int_equal(gpu(PCI_HEADER_TYPE, 1), 0);
    assert_int_equal(gpu(PCI_SUBSYSTEM_VENDOR_ID, 2), VPCI_SUBSYS_VENDOR);
    assert_int_equal(gpu(PCI_SUBSYSTEM_ID, 2), VPCI_SUBSYS_ID);
    assert_int_equal(gpu(PCI_INTERRUPT_PIN, 1), PCI_INTERRUPT_PIN_INTA);
    assert_int_equal(gpu(PCI_STATUS, 2) & PCI_STATUS_CAP_LIST, 0);
    assert_int_equal(gpu(PCI_CAPABILITY_LIST, 1), 0);
    assert_int_equal(gpu(PCI_ROM_ADDRESS, 4), 0);
}

static void test_vgpu_identity_read_only(void **state)
{
    (void)state;
    const unsigned ro[] = { PCI_VENDOR_ID,   PCI_CLASS_REVISION, PCI_SUBSYSTEM_VENDOR_ID,
                            PCI_ROM_ADDRESS, GEN9_PCI_GMCH_CTRL, GEN9_PCI_BDSM };
    for (size_t i = 0; i < sizeof ro / sizeof ro[0]; i++) {
        uint32_t before = gpu(ro[i], 4);
        gpu_write(ro[i], 4, ~before);
        assert_int_equal(gpu(ro[i], 4), before);
    }
    gpu_write(PCI_HEADER_TYPE, 1, PCI_HEADER_MULTIFUNCTION);
    assert_int_equal(gpu(PCI_HEADER_TYPE, 1), 0);
    gpu_write(PCI_CACHE_LINE_SIZE, 4, 0xFFFFFF10u); /* cache line is scratch, the rest not */
    assert_int_equal(gpu(PCI_CACHE_LINE_SIZE, 4), 0x10);
    gpu_write(PCI_INTERRUPT_LINE, 2, 0xFF0B); /* line is the OS's, pin is not */
    assert_int_equal(gpu(PCI_INTERRUPT_LINE, 2), 0x010B);
    gpu_write(PCI_STATUS, 2, 0xFFFF);
    assert_int_equal(gpu(PCI_STATUS, 2), 0);
}

static void test_vgpu_command(void **state)
{
    (void)state;
    assert_int_equal(gpu(PCI_COMMAND, 2), PCI_COMMAND_IO | PCI_COMMAND_MEMORY);
    gpu_write(PCI_COMMAND, 2, 0xFFFF);
    assert_int_equal(gpu(PCI_COMMAND, 2), PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER |
                                              PCI_COMMAND_INTX_DISABLE);
    gpu_write(PCI_COMMAND, 2, 0);
    assert_int_equal(gpu(PCI_COMMAND, 2), 0);
}

static void test_vgpu_bar_defaults(void **state)
{
    (void)state;
    assert_int_equal(gpu(PCI_BAR0, 4), (uint32_t)VGPU_BAR0_DEFAULT | PCI_BAR_MEM_TYPE_64);
    assert_int_equal(gpu(PCI_BAR0 + 4, 4), 0);
    assert_int_equal(gpu(PCI_BAR0 + 8, 4),
                     (uint32_t)VGPU_BAR2_DEFAULT | PCI_BAR_MEM_TYPE_64 | PCI_BAR_MEM_PREFETCH);
    assert_int_equal(gpu(PCI_BAR0 + 12, 4), 0);
    assert_int_equal(gpu(PCI_BAR0 + 16, 4), VGPU_BAR4_DEFAULT | PCI_BAR_IO);
    assert_int_equal(gpu(PCI_BAR0 + 20, 4), 0);
    /* the documented numbers, not just the names */
    assert_true(VGPU_BAR0_DEFAULT == 0xF0000000ULL && VGPU_BAR2_DEFAULT == 0xE0000000ULL);
    uint64_t base = 0;
    assert_int_equal(vpci_bar_base(&bus, VGPU_PCI_DEV, 0, VGPU_BAR_MMIO, &base), VPCI_OK);
    assert_true(base == VGPU_BAR0_DEFAULT);
    assert_int_equal(vpci_bar_base(&bus, VGPU_PCI_DEV, 0, VGPU_BAR_APERTURE, &base), VPCI_OK);
    assert_true(base == VGPU_BAR2_DEFAULT);
}

static void test_vgpu_bar_sizes(void **state)
{
    (void)state;
    assert_true(bar_size(0, true) == 16 * MIB);
    assert_true(bar_size(2, true) == 64 * MIB);
    assert_int_equal(bar_size(4, false) & 0xFFFF, 64);
    /* and sizing left them where they were */
    assert_int_equal(gpu(PCI_BAR0, 4), (uint32_t)VGPU_BAR0_DEFAULT | PCI_BAR_MEM_TYPE_64);
    assert_int_equal(gpu(PCI_BAR0 + 16, 4), VGPU_BAR4_DEFAULT | PCI_BAR_IO);
}

struct moved {
    unsigned n, bar;
    uint64_t base;
    bool decode;
};

static void on_bar(void *ctx, const struct vpci_bar_event *ev)
{
    struct moved *m = ctx;
    m->n++;
    m->bar = ev->bar;
    m->base = ev->base;
    m->decode = ev->decode;
}

static void test_vgpu_bar_move_reported(void **state)
{
    (void)state;
    struct moved m = { 0 };
    vpci_set_bar_callback(&bus, on_bar, &m);
    gpu_write(PCI_BAR0 + 8, 4, 0xD0000000u);
    assert_int_equal(m.n, 1);
    assert_int_equal(m.bar, VGPU_BAR_APERTURE);
    assert_true(m.base == 0xD0000000ULL && m.decode);
    gpu_write(PCI_BAR0 + 4, 4, 0x1); /* BAR0 above 4 GiB */
    assert_int_equal(m.n, 2);
    assert_int_equal(m.bar, VGPU_BAR_MMIO);
    assert_true(m.base == 0x1F0000000ULL);
    /* a base not aligned to the size keeps only the aligned bits */
    gpu_write(PCI_BAR0 + 8, 4, 0xD2345678u);
    uint64_t base = 0;
    assert_int_equal(vpci_bar_base(&bus, VGPU_PCI_DEV, 0, VGPU_BAR_APERTURE, &base), VPCI_OK);
    assert_true(base == 0xD0000000ULL);
}

static void test_gmch_and_bdsm(void **state)
{
    (void)state;
    uint16_t gmch = (uint16_t)gpu(GEN9_PCI_GMCH_CTRL, 2);
    assert_int_equal(gmch, 0x00C0);
    /* decoded as i915's gen8_get_total_gtt_size does: 1 << GGMS MiB of GGTT */
    unsigned ggms = (gmch >> GEN9_GMCH_GGMS_SHIFT) & GEN9_GMCH_GGMS_MASK;
    assert_int_equal(1u << ggms, 8);
    assert_int_equal(8 * MIB / 8, 1u << 20); /* 8-byte entries: 4 GiB of GM */
    assert_int_equal((gmch >> GEN9_GMCH_GMS_SHIFT) & GEN9_GMCH_GMS_MASK, 0);
    assert_int_equal(gpu(GEN9_PCI_BDSM, 4) & GEN9_BDSM_MASK, 0);
    assert_int_equal(gpu(GEN9_PCI_GMCH_CTRL + 1, 1), 0); /* byte reads of the GMS half */
    assert_int_equal(gpu(GEN9_PCI_GMCH_CTRL, 1), 0xC0);
}

static void test_aperture_rounding(void **state)
{
    (void)state;
    assert_true(vgpu_pci_aperture_bytes(0) == 1 * MIB);
    assert_true(vgpu_pci_aperture_bytes(1) == 1 * MIB);
    assert_true(vgpu_pci_aperture_bytes(3) == 4 * MIB);
    assert_true(vgpu_pci_aperture_bytes(16) == 16 * MIB);
    assert_true(vgpu_pci_aperture_bytes(17) == 32 * MIB);
    assert_true(vgpu_pci_aperture_bytes(256) == 256 * MIB);
    assert_true(vgpu_pci_aperture_bytes(257) == 0);
    assert_true(vgpu_pci_aperture_bytes(UINT32_MAX) == 0);
}

static void test_build_refuses_too_large_aperture(void **state)
{
    (void)state;
    struct vpci v;
    assert_int_equal(vgpu_pci_build(&v, 300), VPCI_E_BAR);
    assert_int_equal(vgpu_pci_build(&v, 256), VPCI_OK);
    assert_int_equal(v.n_funcs, 2);
    /* a full-size aperture ends exactly where BAR0 begins */
    uint64_t base = 0;
    assert_int_equal(vpci_bar_base(&v, VGPU_PCI_DEV, 0, VGPU_BAR_APERTURE, &base), VPCI_OK);
    assert_true(base + vgpu_pci_aperture_bytes(256) == VGPU_BAR0_DEFAULT);
}

static void test_rebuild_resets(void **state)
{
    (void)state;
    gpu_write(PCI_BAR0 + 8, 4, 0xD0000000u);
    gpu_write(PCI_COMMAND, 2, 0);
    vpci_io_write(&bus, PCI_CONFIG_ADDRESS, 4, PCI_CONFIG_ENABLE);
    assert_int_equal(vgpu_pci_build(&bus, T_LOW_GM_MIB), VPCI_OK);
    assert_int_equal(gpu(PCI_BAR0 + 8, 4) & ~PCI_BAR_MEM_FLAGS, (uint32_t)VGPU_BAR2_DEFAULT);
    assert_int_equal(gpu(PCI_COMMAND, 2), PCI_COMMAND_IO | PCI_COMMAND_MEMORY);
    assert_int_equal(vpci_io_read(&bus, PCI_CONFIG_ADDRESS, 4), 0);
    assert_null(bus.on_bar);
}

/* A Tessera guest's vGPU has no capability list and so no MSI. */
static void test_no_msi_by_default(void **state)
{
    (void)state;
    uint64_t addr;
    uint32_t data;
    assert_int_equal(gpu(PCI_STATUS, 2) & PCI_STATUS_CAP_LIST, 0);
    assert_false(vgpu_pci_msi(&bus, &addr, &data));
}

/* An i915 guest's: MSI at 0xAC as on Skylake; Linux's pci_enable_msi() programs the address
 * and data, then sets Enable; only those bits are writable. */
static void test_msi_capability_for_i915(void **state)
{
    (void)state;
    uint64_t addr;
    uint32_t data;
    assert_int_equal(vgpu_pci_add_msi(&bus), VPCI_OK);
    assert_true(gpu(PCI_STATUS, 2) & PCI_STATUS_CAP_LIST);
    assert_int_equal(gpu(PCI_CAPABILITY_LIST, 1), VGPU_PCI_MSI_CAP);
    assert_int_equal(gpu(VGPU_PCI_MSI_CAP, 1), PCI_CAP_ID_MSI);
    assert_int_equal(gpu(VGPU_PCI_MSI_CAP + PCI_CAP_NEXT, 1), 0);
    assert_false(vgpu_pci_msi(&bus, &addr, &data)); /* not enabled yet */
    gpu_write(VGPU_PCI_MSI_CAP + PCI_MSI_ADDRESS_LO, 4, 0xFEE01003u);
    gpu_write(VGPU_PCI_MSI_CAP + PCI_MSI_DATA_32, 2, 0x0041);
    gpu_write(VGPU_PCI_MSI_CAP + PCI_MSI_FLAGS, 2, 0xFFFF); /* only Enable sticks */
    assert_int_equal(gpu(VGPU_PCI_MSI_CAP + PCI_MSI_FLAGS, 2), PCI_MSI_FLAGS_ENABLE);
    assert_true(vgpu_pci_msi(&bus, &addr, &data));
    assert_int_equal(addr, 0xFEE01000u); /* bits 1:0 reserved */
    assert_int_equal(data, 0x41);
    gpu_write(PCI_CAPABILITY_LIST, 1, 0); /* read-only */
    assert_int_equal(gpu(PCI_CAPABILITY_LIST, 1), VGPU_PCI_MSI_CAP);
    gpu_write(VGPU_PCI_MSI_CAP + PCI_MSI_FLAGS, 2, 0);
    assert_false(vgpu_pci_msi(&bus, &addr, &data));
}

/* An i915 guest with a display: ASLS names the OpRegion (read-only), and i915's
 * intel_detect_pch() finds an Intel ISA bridge (class 0x0601) at 00:1f.0, 8086:7000, which
 * intel_is_virt_pch() takes for a virtual PCH. */
static void test_display_functions(void **state)
{
    (void)state;
    static struct vpci pci;
    assert_int_equal(vgpu_pci_build(&pci, T_LOW_GM_MIB), VPCI_OK);
    assert_int_equal(vpci_cfg_read(&pci, 0, VGPU_PCI_DEV, VGPU_PCI_FN, PCI_ASLS, 4), 0);
    assert_int_equal(vpci_cfg_read(&pci, 0, PCH_PCI_DEV, PCH_PCI_FN, PCI_VENDOR_ID, 2), 0xFFFF);
    assert_int_equal(vgpu_pci_add_display(&pci, 0xE2001), VPCI_E_ARG); /* not a page */
    assert_int_equal(vgpu_pci_add_display(&pci, 0xE2000), VPCI_OK);
    assert_int_equal(vpci_cfg_read(&pci, 0, VGPU_PCI_DEV, VGPU_PCI_FN, PCI_ASLS, 4), 0xE2000);
    vpci_cfg_write(&pci, 0, VGPU_PCI_DEV, VGPU_PCI_FN, PCI_ASLS, 4, 0x12345000);
    assert_int_equal(vpci_cfg_read(&pci, 0, VGPU_PCI_DEV, VGPU_PCI_FN, PCI_ASLS, 4), 0xE2000);
    assert_int_equal(vpci_cfg_read(&pci, 0, PCH_PCI_DEV, PCH_PCI_FN, PCI_VENDOR_ID, 2),
                     PCI_VENDOR_INTEL);
    assert_int_equal(vpci_cfg_read(&pci, 0, PCH_PCI_DEV, PCH_PCI_FN, PCI_DEVICE_ID, 2), 0x7000);
    assert_int_equal(vpci_cfg_read(&pci, 0, PCH_PCI_DEV, PCH_PCI_FN, PCI_CLASS_BASE, 1),
                     PCI_BASE_CLASS_BRIDGE);
    assert_int_equal(vpci_cfg_read(&pci, 0, PCH_PCI_DEV, PCH_PCI_FN, PCI_CLASS_DEVICE, 1), 0x01);
    for (unsigned b = 0; b < 6; b++)
        assert_int_equal(vpci_cfg_read(&pci, 0, PCH_PCI_DEV, PCH_PCI_FN, 0x10 + 4 * b, 4), 0);
    assert_int_equal(vgpu_pci_add_display(&pci, 0xE2000), VPCI_E_EXISTS); /* once */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_display_functions),
        cmocka_unit_test_setup(test_host_bridge_identity, setup),
        cmocka_unit_test_setup(test_only_two_functions, setup),
        cmocka_unit_test_setup(test_vgpu_identity, setup),
        cmocka_unit_test_setup(test_vgpu_identity_read_only, setup),
        cmocka_unit_test_setup(test_vgpu_command, setup),
        cmocka_unit_test_setup(test_vgpu_bar_defaults, setup),
        cmocka_unit_test_setup(test_vgpu_bar_sizes, setup),
        cmocka_unit_test_setup(test_vgpu_bar_move_reported, setup),
        cmocka_unit_test_setup(test_gmch_and_bdsm, setup),
        cmocka_unit_test_setup(test_aperture_rounding, setup),
        cmocka_unit_test_setup(test_build_refuses_too_large_aperture, setup),
        cmocka_unit_test_setup(test_rebuild_resets, setup),
        cmocka_unit_test_setup(test_no_msi_by_default, setup),
        cmocka_unit_test_setup(test_msi_capability_for_i915, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
