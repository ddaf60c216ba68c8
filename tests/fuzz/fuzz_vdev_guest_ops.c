/* libFuzzer target for the interrupt devices (vmm/vdev): any sequence of guest operations --
 * x2APIC MSR reads and writes on either of two vCPUs (their IPIs routed between them), 8259 and
 * UART port accesses, device lines, operator input, MSIs, time passing, interrupt acknowledges
 * -- never crashes them, and what they offer the vCPU stays consistent: a pending APIC vector
 * is a legal one above the PPR, the next timer is never in the past after advancing, the UART's
 * line is what its IIR and OUT2 say, the BSP never waits for a STARTUP and an AP told to start
 * is runnable. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/uart.h"
#include "vmm/vdev/vipi.h"
#include "vmm/vdev/virq.h"
#include "vmm/vdev/vuart.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond)
        abort();
}

static struct vpic pic;
static void uart_line(void *ctx, bool level)
{
    vpic_set_irq(&pic, 4, level);
}

static uint64_t take(const uint8_t **p, const uint8_t *end, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n && *p < end; i++)
        v |= (uint64_t) * (*p)++ << (8 * i);
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct vuart uart;
    static char ring[VUART_RING_BYTES];
    struct vlapic ls[2];
    struct vipi_cpu mp[2];
    struct vipi_cpu *cpus[2] = { &mp[0], &mp[1] };
    for (unsigned i = 0; i < 2; i++) {
        vlapic_reset(&ls[i], 1 + (size ? data[0] % 4 : 0));
        vlapic_set_id(&ls[i], i);
        mp[i].lapic = &ls[i];
        vipi_cpu_reset(&mp[i], i);
    }
    vpic_reset(&pic);
    memset(&uart, 0, sizeof uart);
    uart.ring = ring;
    uart.set_irq = uart_line;
    static const uint16_t ports[] = { 0x20, 0x21, 0xA0, 0xA1, 0x4D0, 0x4D1 };
    uint64_t now = 1000;
    const uint8_t *p = data, *end = data + size;
    while (p < end) {
        uint8_t op = *p++;
        unsigned me = (op / 10) & 1;
        struct vlapic *l = &ls[me];
        uint64_t v;
        switch (op % 10) {
        case 0: { /* RDMSR */
            uint32_t msr = 0x800 + (uint32_t)take(&p, end, 1);
            if (op & 0x80)
                msr = op & 0x40 ? 0x1B : 0x6E0;
            vlapic_rdmsr(l, msr, now, &v);
            break;
        }
        case 1: { /* WRMSR */
            uint32_t msr = 0x800 + (uint32_t)take(&p, end, 1);
            if (op & 0x80)
                msr = op & 0x40 ? 0x1B : 0x6E0;
            v = take(&p, end, op & 0x20 ? 8 : 4);
            if (msr == 0x6E0)
                v = now + (v & 0xFFFF);
            enum vlapic_result r = vlapic_wrmsr(l, msr, v, now);
            if (r == VLAPIC_XAPIC_REFUSED)
                check(msr == 0x1B);
            if (r == VLAPIC_IPI_SENT)
                check(vipi_route(cpus, 2, me, &l->ipi) < 4);
            break;
        }
        case 2:
            vpic_write(&pic, ports[take(&p, end, 1) % 6], (uint8_t)take(&p, end, 1));
            break;
        case 3:
            vpic_read(&pic, ports[take(&p, end, 1) % 6]);
            break;
        case 4:
            vpic_set_irq(&pic, (unsigned)take(&p, end, 1) % 20, op & 0x10);
            break;
        case 5:
            vuart_write(&uart, (unsigned)take(&p, end, 1) % 8, (uint8_t)take(&p, end, 1));
            break;
        case 6:
            if (op & 0x10)
                vuart_push_input(&uart, (uint8_t)take(&p, end, 1));
            else
                vuart_read(&uart, (unsigned)take(&p, end, 1) % 8);
            break;
        case 7:
            vlapic_deliver_msi(l, 0xFEE00000u | (take(&p, end, 2) << 4),
                               (uint32_t)take(&p, end, 2));
            break;
        case 8:
            now += take(&p, end, 2);
            vlapic_advance(l, now);
            check(vlapic_next_timer(l) == VLAPIC_NO_TIMER || vlapic_next_timer(l) > now);
            break;
        default: {
            int vec = virq_ack(l, &pic);
            check(vec >= -1 && vec <= 255);
            break;
        }
        }
        for (unsigned i = 0; i < 2; i++) {
            int pend = vlapic_pending(&ls[i]);
            check(pend == -1 || (pend >= 16 && (pend & 0xF0) > (int)(vlapic_ppr(&ls[i]) & 0xF0)));
            check(ls[i].id == i && !(ls[i].apic_base & (1u << 8)) == (i != 0));
            check(!mp[i].sipi_start || mp[i].mp == VIPI_RUNNABLE);
        }
        check(mp[0].mp == VIPI_RUNNABLE && !mp[0].init_reset);
        /* The UART's line: a source pending in IIR (without reading it) and OUT2 set. */
        bool source = ((uart.ier & UART_IER_ERBFI) && uart.rx_count) ||
                      ((uart.ier & UART_IER_ETBEI) && uart.thre_pending);
        check(uart.line == (source && (uart.mcr & UART_MCR_OUT2)));
    }
    return 0;
}
