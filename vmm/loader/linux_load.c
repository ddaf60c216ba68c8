/* The Linux guest's loader (loaders.h); the decisions are the pure Linux boot protocol's
 * (boot/linux/) and the ACPI and MP tables' (acpi_tables.c, mptable.c). */
#include "vmm/loader/loaders.h"

#include "arch/x86/cpu.h"
#include "arch/x86/reset_regs.h"
#include "boot/linux/bzimage.h"
#include "boot/linux/linux_layout.h"
#include "boot/linux/linux_place.h"
#include "boot/linux/zero_page.h"
#include "vmm/display/linux_fb.h"
#include "vmm/loader/acpi_tables.h"
#include "vmm/loader/guest_load.h"
#include "vmm/loader/mptable.h"
#include "vmm/vcpu/exit.h"
#include "vmm/vcpu/vmx_setup.h"
#include "vmm/vdev/vacpi_pm.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

_Static_assert(CFG_VCPUS_MAX <= ACPI_MAX_CPUS && CFG_VCPUS_MAX <= MPTABLE_MAX_CPUS,
               "a guest's vCPUs fit its MADT and MP table");

/* "image 'linux': <why>" in vm->reason; returns false. */
__attribute__((format(printf, 3, 4))) static bool fail(struct vm *vm, const char *what,
                                                       const char *fmt, ...)
{
    int n = snprintf(vm->reason, sizeof vm->reason, "%s '%s': ", what,
                     !strcmp(what, "initrd") ? vm->cfg->initrd : vm->cfg->image);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(vm->reason + n, sizeof vm->reason - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

static bool linux_load(struct vm *vm, const struct guest_image *img)
{
    const void *kernel = img->data, *initrd = img->initrd;
    uint64_t len = img->len, initrd_len = img->initrd_len;
    if (!vmx.linux_ok) {
        snprintf(vm->reason, sizeof vm->reason,
                 "a Linux guest needs VT-x's unrestricted guest without CR3 exits "
                 "(its decompressor turns paging off), which this CPU does not offer");
        return false;
    }
    struct bzimage_info bi;
    char err[160];
    if (bzimage_parse(kernel, len, &bi, err, sizeof err) != BZ_OK)
        return fail(vm, "image", "%s", err);
    const char *cmdline = vm->cfg->cmdline;
    struct linux_placement p;
    int rc = linux_place(&bi, vm->ram_bytes, initrd_len, strlen(cmdline), &p, err, sizeof err);
    if (rc != LINUX_PLACE_OK)
        return fail(vm, rc == LINUX_PLACE_EINITRD ? "initrd" : "image", "%s", err);

    memset(vm_gpa_ptr(vm, 0, vm->ram_bytes), 0, vm->ram_bytes);
    const uint8_t *bytes = kernel;
    memcpy(vm_gpa_ptr(vm, p.load_gpa, bi.kernel_bytes), bytes + bi.setup_bytes, bi.kernel_bytes);
    if (initrd_len)
        memcpy(vm_gpa_ptr(vm, p.initrd_gpa, initrd_len), initrd, initrd_len);
    memcpy(vm_gpa_ptr(vm, LINUX_CMDLINE_GPA, strlen(cmdline) + 1), cmdline, strlen(cmdline) + 1);

    /* ACPI tables (used unless the command line says acpi=off) and the MP table (used then). */
    const struct acpi_platform acpi = {
        .lapic_base = (uint32_t)APIC_BASE_DEFAULT,
        .cpus = (uint8_t)vm->cfg->cpus.n, /* 1..CFG_VCPUS_MAX: fits (below) */
        .reset_port = RST_CNT_PORT,
        .reset_value = RST_CNT_SYS_RST | RST_CNT_RST_CPU,
        .sci_irq = ACPI_SCI_IRQ,
        .pm1_evt_port = ACPI_PM1_EVT_PORT,
        .pm1_cnt_port = ACPI_PM1_CNT_PORT,
        .pm_tmr_port = ACPI_PM_TMR_PORT,
        .s5_slp_typ = ACPI_SLP_TYP_S5,
    };
    if (!acpi_tables_build(vm_gpa_ptr(vm, LINUX_ACPI_GPA, LINUX_ACPI_ROOM), LINUX_ACPI_ROOM,
                           LINUX_ACPI_GPA, &acpi))
        return fail(vm, "image", "the ACPI tables do not fit");
    struct zp_config zc = { .ram_bytes = vm->ram_bytes,
                            .cmdline_gpa = LINUX_CMDLINE_GPA,
                            .initrd_gpa = p.initrd_gpa,
                            .initrd_bytes = initrd_len,
                            .acpi_rsdp_gpa = LINUX_ACPI_GPA };
    if (vm->lfb)
        zc.fb = vm->lfb->fb;
    if (zp_build(vm_gpa_ptr(vm, LINUX_ZERO_PAGE_GPA, ZP_BYTES), bytes, &bi, &zc) != 0)
        return fail(vm, "image", "its e820 map does not fit the zero page");

    /* The processor entry tells what CPUID tells this guest. */
    struct cpuid_regs id = guest_cpuid(vm, 0, 1, 0);
    struct mptable_cpu cpu = { (uint8_t)vm->cfg->cpus.n, id.eax, id.edx,
                               (uint32_t)APIC_BASE_DEFAULT };
    if (!mptable_build(vm_gpa_ptr(vm, LINUX_MPTABLE_GPA, LINUX_MPTABLE_ROOM), LINUX_MPTABLE_ROOM,
                       LINUX_MPTABLE_GPA, &cpu))
        return fail(vm, "image", "the MP table does not fit");

    uint64_t *gdt = vm_gpa_ptr(vm, LINUX_GDT_GPA, LINUX_GDT_ENTRIES * sizeof(uint64_t));
    gdt[LINUX_BOOT_CS / 8] = GUEST_GDT_CODE64;
    gdt[LINUX_BOOT_DS / 8] = GUEST_GDT_DATA;
    if (!guest_identity_map(vm))
        return false;
    vm->boot = (struct vm_boot_state){
        p.entry_gpa,   LINUX_BOOT_STACK_TOP, LINUX_ZERO_PAGE_GPA,      LINUX_BOOT_CS,
        LINUX_BOOT_DS, LINUX_GDT_GPA,        LINUX_GDT_ENTRIES * 8 - 1
    };
    return true;
}

const struct guest_loader linux_loader = { CFG_GUEST_LINUX, linux_load };
