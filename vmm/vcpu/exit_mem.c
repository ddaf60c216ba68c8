/* EPT violations: an access to an MMIO region on the guest's I/O bus (vmm/io/io_bus.h) is
 * decoded and emulated; a write to a RAM page a device write-protected goes to that device; any
 * other access outside the guest's RAM goes to the bus's unclaimed-MMIO handler if its board has
 * one, and otherwise stops the guest, naming the address, the access and the instruction. */
#include "vmm/vcpu/exit.h"

#include "arch/x86/page_alloc.h"
#include "arch/x86/regs.h"
#include "arch/x86/vmx_controls.h"
#include "vmm/io/io_bus.h"
#include "vmm/vcpu/mmio.h"
#include "vmm/vcpu/mmio_decode.h"
#include "vmm/vcpu/vcpu_run.h"

#include <string.h>

/* 4-level walk (SDM Vol. 3A §4.5) through tables that must lie in guest RAM. */
bool guest_virt_to_phys(const struct vm *vm, uint64_t cr3, uint64_t gva, uint64_t *gpa)
{
    const uint64_t addr_mask = PTE_ADDR_MASK;
    uint64_t table = cr3 & addr_mask;
    for (int level = 3; level >= 0; level--) {
        const uint64_t *t = vm_gpa_ptr(vm, table, PAGE_SIZE);
        if (!t)
            return false;
        uint64_t e = t[(gva >> (12 + 9 * level)) & 511];
        if (!(e & PTE_P))
            return false;
        if (level > 0 && level < 3 && (e & PTE_PS)) {
            uint64_t page = 1ULL << (12 + 9 * level);
            *gpa = (e & addr_mask & ~(page - 1)) | (gva & (page - 1));
            return true;
        }
        table = e & addr_mask;
    }
    *gpa = table | (gva & 0xFFF);
    return true;
}

/* Up to 15 instruction bytes at the guest's RIP. */
static unsigned fetch_insn(const struct vm *vm, uint64_t rip, uint8_t *buf)
{
    uint64_t cr3 = vmread(VMCS_GUEST_CR3);
    unsigned n = 0;
    while (n < 15) {
        uint64_t gpa;
        if (!guest_virt_to_phys(vm, cr3, rip + n, &gpa))
            break;
        unsigned chunk = (unsigned)(PAGE_SIZE - (gpa & (PAGE_SIZE - 1)));
        if (chunk > 15 - n)
            chunk = 15 - n;
        const uint8_t *p = vm_gpa_ptr(vm, gpa, chunk);
        if (!p)
            break;
        memcpy(buf + n, p, chunk);
        n += chunk;
    }
    return n;
}

static enum exit_action emulate(struct vcpu *c, const struct exit_info *x, const struct io_mmio *r,
                                uint64_t gpa)
{
    struct vm *vm = c->vm;
    /* The decoder and the page walk know 64-bit mode only; a Linux guest's decompressor runs
     * briefly in 32-bit mode (unrestricted guest) but touches no MMIO there. */
    if (!(vmread(VMCS_GUEST_CS_AR) & VMX_AR_L)) {
        vm_stop(vm, VM_CRASHED,
                "MMIO access to %s at GPA %#llx outside 64-bit mode (RIP %#llx): not emulated",
                r->name, (unsigned long long)gpa, (unsigned long long)x->rip);
        return EXIT_STOPPED;
    }
    uint8_t bytes[15];
    unsigned n = fetch_insn(vm, x->rip, bytes);
    struct mmio_insn in;
    int err = mmio_decode(bytes, n, &in);
    if (err) {
        vm_stop(vm, VM_CRASHED,
                "MMIO access to %s at GPA %#llx by an instruction the emulator does not "
                "support (%s) at RIP %#llx",
                r->name, (unsigned long long)gpa, mmio_strerror(err), (unsigned long long)x->rip);
        return EXIT_STOPPED;
    }
    uint64_t *g = c->gprs.gpr, off = gpa - r->base;
    bool ok;
    if (in.is_write) {
        uint64_t src = in.src == MMIO_SRC_REG ? g[in.reg] : 0, val = mmio_store_value(&in, src);
        /* Long work waits for a guest owed the CPU: the write is executed again later. */
        if (r->write_cost && vcpu_defer_work(c, x->rip, r->write_cost(r->ctx, off, in.size, val)))
            return EXIT_YIELD;
        ok = r->write && r->write(r->ctx, off, in.size, val);
    } else {
        uint64_t v = 0;
        ok = r->read && r->read(r->ctx, off, in.size, &v);
        if (ok)
            g[in.reg] = mmio_load_result(&in, g[in.reg], v);
    }
    if (!ok) {
        vm_stop(vm, VM_CRASHED, "%s of %u bytes at %s offset %#llx refused (RIP %#llx)",
                in.is_write ? "write" : "read", in.size, r->name, (unsigned long long)off,
                (unsigned long long)x->rip);
        return EXIT_STOPPED;
    }
    vmwrite(VMCS_GUEST_RIP, x->rip + in.len);
    return EXIT_RESUME;
}

enum exit_action exit_ept_violation(struct vcpu *c, const struct exit_info *x)
{
    struct vm *vm = c->vm;
    uint64_t gpa = vmread(VMCS_GUEST_PHYSICAL_ADDRESS);
    /* A write to a page of its RAM a device write-protected (the i915 vGPU's PPGTT table pages):
     * the device takes the page back and the guest executes the write again (vgpu_i915.h).
     * Before the unclaimed-MMIO handler, which would drop the write. */
    const struct io_bus *bus = &vm->io;
    if ((x->qualification & EPT_QUAL_WRITE) && gpa < vm->ram_bytes && bus->ram_write &&
        bus->ram_write(bus->ram_write_ctx, gpa))
        return EXIT_RESUME;
    const struct io_mmio *r = io_bus_mmio_at(&vm->io, gpa);
    if (!r && !(x->qualification & EPT_QUAL_FETCH))
        r = io_bus_unclaimed(&vm->io); /* a Linux guest's empty bus: all ones, writes ignored */
    if (r)
        return emulate(c, x, r, gpa);
    const char *access = x->qualification & EPT_QUAL_FETCH ? "instruction fetch"
                       : x->qualification & EPT_QUAL_WRITE ? "write"
                                                           : "read";
    vm_stop(vm, VM_CRASHED, "%s at GPA %#llx outside its memory (RIP %#llx)", access,
            (unsigned long long)gpa, (unsigned long long)x->rip);
    return EXIT_STOPPED;
}
