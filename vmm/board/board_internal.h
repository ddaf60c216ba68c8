/* The board's parts, attached by board_attach (board.c). */
#ifndef TESSERA_VMM_BOARD_BOARD_INTERNAL_H
#define TESSERA_VMM_BOARD_BOARD_INTERNAL_H

#include <stdbool.h>

#include "vmm/io/io_bus.h"

struct vm;

/* The PCI configuration mechanism and bus 0 (board_pci.c). */
bool board_pci_attach(struct vm *vm);
/* A Linux guest's platform (board_linux.c). */
bool board_linux_attach(struct vm *vm);

/* Adds a port range; false with vm->reason set when the bus refuses it. */
bool board_add_ports(struct vm *vm, const struct io_ports *p);

#endif
