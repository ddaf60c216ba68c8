/* The Tessera guest's loader (loaders.h) and the identity map both loaders build. */
#include "vmm/loader/guest_load.h"
#include "vmm/loader/loaders.h"

#include "arch/x86/page_alloc.h"
#include "arch/x86/regs.h"
#include "arch/x86/timer.h"
#include "tessera/abi/guest.h"
#include "vmm/loader/elf64.h"

#include <stdio.h>
#include <string.h>

#include <stdarg.h>

#define GUEST_IDENTITY_MAP (4ULL << 30) /* the low 4 GiB (RAM and MMIO windows) at least */
#define PD_BYTES           ((uint64_t)PT_ENTRIES * PAGE_2M) /* one page directory of 2 MiB pages: 1 GiB */

/* Records why the image cannot be loaded ("image 'hello': ...") and returns false. */
__attribute__((format(printf, 2, 3))) static bool fail(struct vm *vm, const char *fmt, ...)
{
    int n = snprintf(vm->reason, sizeof vm->reason, "image '%s': ", vm->cfg->image);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(vm->reason + n, sizeof vm->reason - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

/* ELF-64 executable for x86-64 whose loadable segments lie inside guest RAM above the low
 * pages the hypervisor owns. */
static bool load_elf(struct vm *vm, const uint8_t *img, uint64_t len, uint64_t *entry)
{
    if (len < sizeof(struct elf64_ehdr))
        return fail(vm, "%llu bytes is too short for an ELF header", (unsigned long long)len);
    struct elf64_ehdr eh;
    memcpy(&eh, img, sizeof eh);
    if (memcmp(eh.e_ident, ELF_MAGIC, 4) || eh.e_ident[4] != ELFCLASS64 ||
        eh.e_ident[5] != ELFDATA2LSB)
        return fail(vm, "not a little-endian ELF-64 file");
    if (eh.e_type != ET_EXEC || eh.e_machine != EM_X86_64)
        return fail(vm, "ELF type %u machine %u (expected an x86-64 executable)", eh.e_type,
                    eh.e_machine);
    if (eh.e_phentsize != sizeof(struct elf64_phdr) || eh.e_phoff > len ||
        (uint64_t)eh.e_phnum * sizeof(struct elf64_phdr) > len - eh.e_phoff)
        return fail(vm, "program headers at %llu x%u lie outside the file",
                    (unsigned long long)eh.e_phoff, eh.e_phnum);
    bool entry_loaded = false;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        struct elf64_phdr ph;
        memcpy(&ph, img + eh.e_phoff + i * sizeof ph, sizeof ph);
        if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
            continue;
        if (ph.p_filesz > ph.p_memsz || ph.p_offset > len || ph.p_filesz > len - ph.p_offset)
            return fail(vm, "segment at file offset %llu (%llu bytes) lies outside the file",
                        (unsigned long long)ph.p_offset, (unsigned long long)ph.p_filesz);
        if (ph.p_paddr < TESSERA_GUEST_IMAGE_MIN || ph.p_memsz > vm->ram_bytes ||
            ph.p_paddr > vm->ram_bytes - ph.p_memsz)
            return fail(vm,
                        "segment at %#llx (%llu bytes) does not fit the guest's RAM above 1 MiB",
                        (unsigned long long)ph.p_paddr, (unsigned long long)ph.p_memsz);
        uint8_t *dst = vm_gpa_ptr(vm, ph.p_paddr, ph.p_memsz);
        memcpy(dst, img + ph.p_offset, ph.p_filesz);
        memset(dst + ph.p_filesz, 0, ph.p_memsz - ph.p_filesz);
        if (eh.e_entry >= ph.p_paddr && eh.e_entry < ph.p_paddr + ph.p_memsz)
            entry_loaded = true;
    }
    if (!entry_loaded)
        return fail(vm, "entry point %#llx is not inside a loaded segment",
                    (unsigned long long)eh.e_entry);
    *entry = eh.e_entry;
    return true;
}

bool guest_identity_map(struct vm *vm)
{
    uint64_t span = vm->ram_bytes > GUEST_IDENTITY_MAP ? vm->ram_bytes : GUEST_IDENTITY_MAP;
    uint64_t n_pd = (span + PD_BYTES - 1) / PD_BYTES;
    uint64_t pml4 = TESSERA_GUEST_PT_BASE, pdpt = pml4 + PAGE_SIZE, pd = pdpt + PAGE_SIZE;
    if (n_pd > PT_ENTRIES || pd + n_pd * PAGE_SIZE > TESSERA_GUEST_IMAGE_MIN) {
        snprintf(vm->reason, sizeof vm->reason,
                 "guest RAM of %llu MiB needs more page tables than fit below 1 MiB",
                 (unsigned long long)(vm->ram_bytes >> 20));
        return false;
    }
    uint64_t *t4 = vm_gpa_ptr(vm, pml4, PAGE_SIZE), *t3 = vm_gpa_ptr(vm, pdpt, PAGE_SIZE);
    t4[0] = pdpt | PTE_P | PTE_W;
    for (uint64_t i = 0; i < n_pd; i++) {
        t3[i] = (pd + i * PAGE_SIZE) | PTE_P | PTE_W;
        uint64_t *t2 = vm_gpa_ptr(vm, pd + i * PAGE_SIZE, PAGE_SIZE);
        for (uint64_t j = 0; j < PT_ENTRIES; j++)
            t2[j] = (i * PT_ENTRIES + j) * PAGE_2M | PTE_P | PTE_W | PTE_PS;
    }
    return true;
}

static bool tessera_load(struct vm *vm, const struct guest_image *img)
{
    uint64_t entry = 0;
    memset(vm_gpa_ptr(vm, 0, vm->ram_bytes), 0, vm->ram_bytes);
    if (!load_elf(vm, img->data, img->len, &entry) || !guest_identity_map(vm))
        return false;

    uint64_t *gdt = vm_gpa_ptr(vm, TESSERA_GUEST_GDT, 3 * sizeof(uint64_t));
    gdt[0] = 0;
    gdt[TESSERA_GUEST_CS / 8] = GUEST_GDT_CODE64;
    gdt[TESSERA_GUEST_DS / 8] = GUEST_GDT_DATA;
    vm->boot = (struct vm_boot_state){ entry,
                                       vm->ram_bytes - 16,
                                       TESSERA_GUEST_BOOT_INFO,
                                       TESSERA_GUEST_CS,
                                       TESSERA_GUEST_DS,
                                       TESSERA_GUEST_GDT,
                                       3 * 8 - 1 };

    struct tessera_boot_info *bi = vm_gpa_ptr(vm, TESSERA_GUEST_BOOT_INFO, sizeof *bi);
    bi->magic = TESSERA_BOOT_MAGIC;
    bi->version = TESSERA_BOOT_VERSION;
    bi->guest_id = vm->id;
    bi->ram_bytes = vm->ram_bytes;
    bi->tsc_hz = timer_tsc_hz();
    bi->boot_count = vm->boot_count;
    snprintf(bi->name, sizeof bi->name, "%s", vm->cfg->name);
    snprintf(bi->cmdline, sizeof bi->cmdline, "%s", vm->cfg->cmdline);
    return true;
}

const struct guest_loader tessera_loader = { CFG_GUEST_TESSERA, tessera_load };
