/* Port I/O: every IN and OUT exits.  COM1 is the guest's virtual UART; every other port reads
 * as all ones and ignores writes, as an empty ISA bus does. */
#include "vmm/exit.h"

#include "arch/x86/vmx_controls.h"
#include "tessera/abi/guest.h"

#define COM_PORTS 8

enum exit_action exit_io(struct vm *vm, const struct exit_info *x)
{
    uint64_t q = x->qualification;
    unsigned size = (unsigned)(q & IO_QUAL_SIZE_MASK) + 1;
    unsigned port = (unsigned)(q >> IO_QUAL_PORT_SHIFT) & 0xFFFF;
    bool in = q & IO_QUAL_IN;
    if (q & IO_QUAL_STRING) {
        vm_stop(vm, VM_CRASHED, "string I/O (%s) on port %#x at RIP %#llx is not supported",
                in ? "INS" : "OUTS", port, (unsigned long long)x->rip);
        return EXIT_STOPPED;
    }
    uint64_t *rax = &vm->gprs.gpr[GPR_RAX];
    uint64_t mask = size == 4 ? 0xFFFFFFFFULL : (1ULL << (8 * size)) - 1;
    bool uart = port >= TESSERA_GUEST_CONSOLE_PORT && port < TESSERA_GUEST_CONSOLE_PORT + COM_PORTS;
    if (in) {
        uint64_t v = uart && size == 1 ? vuart_read(&vm->uart, port - TESSERA_GUEST_CONSOLE_PORT) : mask;
        /* IN to AL/AX keeps the rest of RAX; IN to EAX zeroes the upper half (SDM IN). */
        *rax = size == 4 ? (v & mask) : ((*rax & ~mask) | (v & mask));
    } else if (uart && size == 1) {
        vuart_write(&vm->uart, port - TESSERA_GUEST_CONSOLE_PORT, (uint8_t)*rax);
    }
    exit_skip_instruction(x);
    return EXIT_RESUME;
}
