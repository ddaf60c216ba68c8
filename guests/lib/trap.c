/* CPU exceptions inside the guest: an IDT whose handlers for vectors 0-31 report the fault on
 * the console and stop the guest, so a fault the hypervisor injects (a #GP for a forbidden WRMSR,
 * a #UD for VMXON) is visible to the operator rather than a silent triple fault.  guest_trap_try
 * lets a guest provoke a fault on purpose and carry on.  Vectors 32-255 are interrupts, passed
 * to irq.c. */
#include "guests/lib/guest.h"
#include "guests/lib/internal.h"
#include "guests/lib/x86.h"

#include <setjmp.h>
#include <stdint.h>

#define TRAP_VECTORS 32 /* CPU exceptions; the IDT has IDT_VECTORS entries */
#define IDT_VECTORS  256

/* What trap_entry.S pushes, lowest address first, then what the CPU pushed. */
struct guest_trap_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error;
    uint64_t rip, cs, rflags, rsp, ss;
};

struct idt_gate {
    uint16_t offset_lo;
    uint16_t selector;
    uint8_t ist;
    uint8_t type;
    uint16_t offset_mid;
    uint32_t offset_hi;
    uint32_t reserved;
} __attribute__((packed));

struct idt_ptr {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed));

extern const uint64_t guest_trap_stubs[IDT_VECTORS];
void guest_trap_dispatch(struct guest_trap_frame *f);

static struct idt_gate idt[IDT_VECTORS] __attribute__((aligned(16)));
static jmp_buf *catch_env; /* set while guest_trap_try runs its function */
static struct guest_trap caught;
static volatile int in_handler;

static const char *const trap_names[TRAP_VECTORS] = {
    [0] = "#DE",  [1] = "#DB",  [2] = "NMI",  [3] = "#BP",      [4] = "#OF",  [5] = "#BR",
    [6] = "#UD",  [7] = "#NM",  [8] = "#DF",  [9] = "#MF(old)", [10] = "#TS", [11] = "#NP",
    [12] = "#SS", [13] = "#GP", [14] = "#PF", [16] = "#MF",     [17] = "#AC", [18] = "#MC",
    [19] = "#XM", [20] = "#VE", [21] = "#CP", [28] = "#HV",     [29] = "#VC", [30] = "#SX",
};

const char *guest_trap_name(unsigned vector)
{
    if (vector < TRAP_VECTORS && trap_names[vector])
        return trap_names[vector];
    return "#??";
}

void guest_trap_init(void)
{
    /* The code selector we run on: the hypervisor's boot GDT (TESSERA_GUEST_CS), read back
     * rather than assumed so a guest that loads its own GDT keeps working. */
    uint16_t cs = x86_read_cs();
    for (unsigned v = 0; v < IDT_VECTORS; v++) {
        uint64_t handler = guest_trap_stubs[v];
        idt[v] = (struct idt_gate){
            .offset_lo = (uint16_t)handler,
            .selector = cs,
            .ist = 0,
            .type = IDT_INTERRUPT_GATE,
            .offset_mid = (uint16_t)(handler >> 16),
            .offset_hi = (uint32_t)(handler >> 32),
        };
    }
    struct idt_ptr p = { .limit = sizeof(idt) - 1, .base = (uint64_t)(uintptr_t)idt };
    __asm__ volatile("lidt %0" : : "m"(p) : "memory");
}

/* Writes straight to the UART, not through stdio: the fault may have hit inside printf. */
void guest_trap_dispatch(struct guest_trap_frame *f)
{
    if (f->vector >= TRAP_VECTORS) {
        guest_irq_dispatch((unsigned)f->vector, f->rip);
        return;
    }
    if (in_handler) {
        guest_console_puts("\nguest: exception inside the exception handler, stopping\n");
        guest_exit_now(GUEST_EXIT_DOUBLE_TRAP);
    }
    in_handler = 1;

    unsigned vector = (unsigned)f->vector;
    uint64_t cr2 = vector == GUEST_VEC_PF ? x86_read_cr2() : 0;
    guest_console_puts("guest: caught ");
    guest_console_puts(guest_trap_name(vector));
    guest_console_puts(" at rip ");
    guest_console_put_hex(f->rip);
    guest_console_puts(" error ");
    guest_console_put_hex(f->error);
    if (vector == GUEST_VEC_PF) {
        guest_console_puts(" cr2 ");
        guest_console_put_hex(cr2);
    }
    guest_console_puts("\n");

    if (catch_env) {
        jmp_buf *env = catch_env;
        catch_env = NULL;
        caught = (struct guest_trap){ .vector = vector,
                                      .rip = f->rip,
                                      .error = f->error,
                                      .cr2 = cr2 };
        in_handler = 0;
        longjmp(*env, 1); /* abandons the exception frame: we stay at CPL 0, IF = 0 */
    }
    guest_exit_now(GUEST_EXIT_TRAP_BASE + vector);
}

bool guest_trap_try(void (*fn)(void *arg), void *arg, struct guest_trap *trap)
{
    jmp_buf env;
    if (setjmp(env) == 0) {
        catch_env = &env;
        fn(arg);
        catch_env = NULL;
        return false;
    }
    if (trap)
        *trap = caught;
    return true;
}
