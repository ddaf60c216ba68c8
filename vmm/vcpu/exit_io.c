/* Port I/O: every IN and OUT exits, is decoded here and dispatched through the guest's I/O bus
 * (vmm/io/io_bus.h) to the device whose range holds the port.  A port no device claims reads as
 * all ones and ignores writes, as an empty ISA bus does. */
#include "vmm/vcpu/exit.h"

#include "arch/x86/vmx_controls.h"
#include "vmm/io/io_bus.h"

enum exit_action exit_io(struct vcpu *c, const struct exit_info *x)
{
    struct vm *vm = c->vm;
    uint64_t q = x->qualification;
    unsigned size = (unsigned)(q & IO_QUAL_SIZE_MASK) + 1;
    uint16_t port = (uint16_t)(q >> IO_QUAL_PORT_SHIFT);
    bool in = q & IO_QUAL_IN;
    if (q & IO_QUAL_STRING) {
        vm_stop(vm, VM_CRASHED, "string I/O (%s) on port %#x at RIP %#llx is not supported",
                in ? "INS" : "OUTS", port, (unsigned long long)x->rip);
        return EXIT_STOPPED;
    }
    uint64_t *rax = &c->gprs.gpr[GPR_RAX];
    uint64_t mask = size == 4 ? 0xFFFFFFFFULL : (1ULL << (8 * size)) - 1;
    const struct io_ports *dev = io_bus_ports_at(&vm->io, port);
    uint32_t v = (uint32_t)mask; /* what nobody drives reads as */
    enum io_status s = IO_UNCLAIMED;
    if (dev)
        s = in
              ? (dev->in ? dev->in(dev->ctx, port, size, &v) : IO_UNCLAIMED)
              : (dev->out ? dev->out(dev->ctx, port, size, (uint32_t)(*rax & mask)) : IO_UNCLAIMED);
    switch (s) {
    case IO_RESTARTED:
        return EXIT_YIELD; /* its vCPU starts afresh: RIP is not this instruction's */
    case IO_STOPPED:
        return EXIT_STOPPED;
    case IO_UNCLAIMED:
        v = (uint32_t)mask;
        break;
    case IO_DONE:
        break;
    }
    /* IN to AL/AX keeps the rest of RAX; IN to EAX zeroes the upper half (SDM IN). */
    if (in)
        *rax = size == 4 ? (v & mask) : ((*rax & ~mask) | (v & mask));
    exit_skip_instruction(x);
    return EXIT_RESUME;
}
