/* The board every guest gets (board.h): COM1 and the 8259 pair's ports here, the PCI bus in
 * board_pci.c, a Linux guest's platform in board_linux.c. */
#include "vmm/board/board.h"
#include "vmm/board/board_internal.h"

#include "arch/x86/i8259.h"
#include "tessera/abi/guest.h"
#include "vmm/vm.h"

#include <stdio.h>

bool board_add_ports(struct vm *vm, const struct io_ports *p)
{
    int rc = io_bus_add_ports(&vm->io, p);
    if (rc != IO_OK)
        snprintf(vm->reason, sizeof vm->reason, "its board's %s at port %#x: %s", p->name, p->first,
                 io_strerror(rc));
    return rc == IO_OK;
}

/* ---- COM1: the guest's console ---- */

static void com1_line(void *ctx, bool level)
{
    struct vm *vm = ctx;
    vpic_set_irq(&vm->pic, BOARD_COM1_IRQ, level);
}

/* The 16550's registers are bytes: a wider access is not one it decodes. */
static enum io_status com1_in(void *ctx, uint16_t port, unsigned size, uint32_t *value)
{
    struct vm *vm = ctx;
    if (size != 1)
        return IO_UNCLAIMED;
    *value = vuart_read(&vm->uart, port - TESSERA_GUEST_CONSOLE_PORT);
    return IO_DONE;
}

static enum io_status com1_out(void *ctx, uint16_t port, unsigned size, uint32_t value)
{
    struct vm *vm = ctx;
    if (size != 1)
        return IO_UNCLAIMED;
    vuart_write(&vm->uart, port - TESSERA_GUEST_CONSOLE_PORT, (uint8_t)value);
    return IO_DONE;
}

static bool com1_init(struct vm *vm, void *ctx)
{
    if (!vuart_init(&vm->uart)) {
        snprintf(vm->reason, sizeof vm->reason, "no memory for its console");
        return false;
    }
    vm->uart.set_irq = com1_line;
    vm->uart.irq_ctx = vm;
    return board_add_ports(vm, &(struct io_ports){ TESSERA_GUEST_CONSOLE_PORT, BOARD_COM1_PORTS,
                                                   com1_in, com1_out, vm, "COM1" });
}

static bool com1_start(struct vm *vm, void *ctx)
{
    vuart_reset(&vm->uart);
    return true;
}

static void com1_stats(const struct vm *vm, void *ctx, char *buf, size_t len)
{
    snprintf(buf, len, "%zu bytes written, %u waiting to be read", vm->uart.ring_head,
             vm->uart.rx_count);
}

/* ---- the 8259 pair's ports ---- */

static enum io_status pic_in(void *ctx, uint16_t port, unsigned size, uint32_t *value)
{
    struct vm *vm = ctx;
    if (size != 1 || !vpic_claims_port(port))
        return IO_UNCLAIMED;
    *value = vpic_read(&vm->pic, port);
    return IO_DONE;
}

static enum io_status pic_out(void *ctx, uint16_t port, unsigned size, uint32_t value)
{
    struct vm *vm = ctx;
    if (size != 1 || !vpic_claims_port(port))
        return IO_UNCLAIMED;
    vpic_write(&vm->pic, port, (uint8_t)value);
    return IO_DONE;
}

static bool pic_init(struct vm *vm, void *ctx)
{
    return board_add_ports(vm,
                           &(struct io_ports){ PIC1_CMD, 2, pic_in, pic_out, vm, "8259 master" }) &&
           board_add_ports(vm,
                           &(struct io_ports){ PIC2_CMD, 2, pic_in, pic_out, vm, "8259 slave" }) &&
           board_add_ports(vm,
                           &(struct io_ports){ PIC_ELCR1, 2, pic_in, pic_out, vm, "8259 ELCR" });
}

static void pic_stats(const struct vm *vm, void *ctx, char *buf, size_t len)
{
    snprintf(buf, len, "%llu interrupt acknowledge cycles", (unsigned long long)vm->pic.acks);
}

/* ---- the board ---- */

static bool attach(struct vm *vm)
{
    int rc = io_bus_reserve(&vm->io, BOARD_APIC_AREA_BASE,
                            BOARD_APIC_AREA_END - BOARD_APIC_AREA_BASE,
                            "interrupt controllers and firmware");
    if (rc != IO_OK) {
        vm_stop(vm, VM_FAILED, "its board's interrupt-controller addresses: %s", io_strerror(rc));
        return false;
    }
    if (!vm_add_device(vm, &(struct vm_device){ .name = "com1",
                                                .ctx = vm,
                                                .init = com1_init,
                                                .start = com1_start,
                                                .stats = com1_stats }) ||
        !vm_add_device(vm, &(struct vm_device){ .name = "8259",
                                                .ctx = vm,
                                                .init = pic_init,
                                                .stats = pic_stats }) ||
        !board_pci_attach(vm))
        return false;
    return !vm_is_linux(vm) || board_linux_attach(vm);
}

bool board_attach(struct vm *vm)
{
    if (attach(vm))
        return true;
    vm->board_failed = true; /* a guest with half a board is never started */
    return false;
}
