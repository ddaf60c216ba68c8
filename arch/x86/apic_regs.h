/* The local APIC's registers and bits, named once for the host's LAPIC driver (arch/x86/lapic.c,
 * xAPIC MMIO) and the guests' virtual x2APIC (vmm/vdev/vlapic.c, MSRs).
 *
 * Intel SDM Vol. 3A chapter 11 "Advanced Programmable Interrupt Controller (APIC)" (chapter 10
 * in editions before 2023): Table 11-1 "Local APIC Register Address Map" (xAPIC offsets),
 * §11.12.1.2 and Table 11-6 "Local APIC Register Address Map Supported by x2APIC" (MSR
 * 0x800 + offset / 16), Figure 11-8 "Local Vector Table", §11.5.4 the timer, §11.6.1 the ICR,
 * §11.5.3 the ESR, §11.9 the SVR, §11.11 MSI address and data. */
#ifndef TESSERA_ARCH_X86_APIC_REGS_H
#define TESSERA_ARCH_X86_APIC_REGS_H

/* Register offsets in the xAPIC MMIO page (Table 11-1). */
#define XAPIC_ID_SHIFT      24 /* the xAPIC ID register holds the ID in bits 31:24 */
#define LAPIC_ID            0x020
#define LAPIC_VERSION       0x030
#define LAPIC_TPR           0x080
#define LAPIC_PPR           0x0A0
#define LAPIC_EOI           0x0B0
#define LAPIC_LDR           0x0D0
#define LAPIC_SVR           0x0F0
#define LAPIC_ISR0          0x100 /* ISR bits 31:0; 8 registers 0x10 apart */
#define LAPIC_TMR0          0x180
#define LAPIC_IRR0          0x200
#define LAPIC_ESR           0x280
#define LAPIC_LVT_CMCI      0x2F0
#define LAPIC_ICR           0x300 /* bits 31:0; in x2APIC mode one 64-bit MSR */
#define LAPIC_ICR_HIGH      0x310 /* xAPIC: bits 63:32, the destination */
#define LAPIC_LVT_TIMER     0x320
#define LAPIC_LVT_THERMAL   0x330
#define LAPIC_LVT_PERF      0x340
#define LAPIC_LVT_LINT0     0x350
#define LAPIC_LVT_LINT1     0x360
#define LAPIC_LVT_ERROR     0x370
#define LAPIC_TIMER_INITIAL 0x380 /* TMICT */
#define LAPIC_TIMER_CURRENT 0x390 /* TMCCT */
#define LAPIC_TIMER_DIVIDE  0x3E0 /* TDCR */
#define LAPIC_SELF_IPI      0x3F0 /* x2APIC mode only */
#define LAPIC_VECTOR_REGS   8     /* ISR, TMR and IRR are 8 x 32 bits each */

/* x2APIC: register at xAPIC offset `off` is MSR 0x800 + off / 16 (§11.12.1.2). */
#define X2APIC_MSR_BASE 0x800u
#define X2APIC_MSR_LAST 0x8FFu
#define X2APIC_MSR(off) (X2APIC_MSR_BASE + ((off) >> 4))

/* Version register (Figure 11-7): version in 7:0, max LVT entry in 23:16. */
#define LAPIC_VERSION_INTEGRATED   0x14u /* an integrated APIC (Pentium 4 and later) */
#define LAPIC_VERSION_MAXLVT_SHIFT 16

/* TPR, PPR (§11.8.3.1): the priority class is bits 7:4. */
#define LAPIC_PRIORITY_CLASS(v) ((v)&0xF0u)

/* Spurious-interrupt vector register (Figure 11-23). */
#define LAPIC_SVR_VECTOR_MASK    0xFFu
#define LAPIC_SVR_ENABLE         (1u << 8) /* APIC software enable */
#define LAPIC_SVR_FOCUS_DISABLED (1u << 9)
#define LAPIC_SVR_EOI_SUPPRESS   (1u << 12) /* only if VERSION bit 24 says so */

/* Local vector table entries (Figure 11-8). */
#define LAPIC_LVT_VECTOR_MASK     0xFFu
#define LAPIC_LVT_DELIVERY_MASK   (7u << 8)
#define LAPIC_LVT_DELIVERY_FIXED  (0u << 8)
#define LAPIC_LVT_DELIVERY_SMI    (2u << 8)
#define LAPIC_LVT_DELIVERY_NMI    (4u << 8)
#define LAPIC_LVT_DELIVERY_INIT   (5u << 8)
#define LAPIC_LVT_DELIVERY_EXTINT (7u << 8)
#define LAPIC_LVT_PENDING         (1u << 12) /* delivery status (read-only) */
#define LAPIC_LVT_ACTIVE_LOW      (1u << 13) /* LINT0/1: input pin polarity */
#define LAPIC_LVT_REMOTE_IRR      (1u << 14) /* LINT0/1, read-only */
#define LAPIC_LVT_LEVEL           (1u << 15) /* LINT0/1: trigger mode */
#define LAPIC_LVT_MASKED          (1u << 16)
#define LAPIC_LVT_TIMER_MODE_MASK (3u << 17)
#define LAPIC_LVT_ONESHOT         (0u << 17)
#define LAPIC_LVT_PERIODIC        (1u << 17)
#define LAPIC_LVT_TSC_DEADLINE    (2u << 17)

/* Divide configuration register (Figure 11-10): bits 0, 1 and 3. */
#define LAPIC_DIVIDE_MASK  0xBu
#define LAPIC_DIVIDE_BY_16 0x3u
#define LAPIC_DIVIDE_BY_1  0xBu

/* Error status register (Figure 11-9). */
#define LAPIC_ESR_SEND_ILLEGAL_VECTOR    (1u << 5)
#define LAPIC_ESR_RECEIVE_ILLEGAL_VECTOR (1u << 6)
#define LAPIC_ESR_ILLEGAL_REGISTER       (1u << 7)

/* Interrupt command register (Figure 11-12, and Figure 11-28 for x2APIC: destination in
 * bits 63:32). */
#define LAPIC_ICR_VECTOR_MASK     0xFFu
#define LAPIC_ICR_DELIVERY_MASK   (7u << 8)
#define LAPIC_ICR_FIXED           (0u << 8)
#define LAPIC_ICR_LOWEST_PRIORITY (1u << 8)
#define LAPIC_ICR_SMI             (2u << 8)
#define LAPIC_ICR_NMI             (4u << 8)
#define LAPIC_ICR_INIT            (5u << 8)
#define LAPIC_ICR_STARTUP         (6u << 8)
#define LAPIC_ICR_LOGICAL         (1u << 11) /* destination mode */
#define LAPIC_ICR_PENDING         (1u << 12) /* delivery status: xAPIC only */
#define LAPIC_ICR_ASSERT          (1u << 14) /* level */
#define LAPIC_ICR_LEVEL_TRIGGER   (1u << 15)
#define LAPIC_ICR_SHORTHAND_MASK  (3u << 18)
#define LAPIC_ICR_DEST_FIELD      (0u << 18)
#define LAPIC_ICR_SELF            (1u << 18)
#define LAPIC_ICR_ALL_INCLUDING   (2u << 18)
#define LAPIC_ICR_ALL_EXCLUDING   (3u << 18)
#define X2APIC_ICR_DEST_SHIFT     32
#define XAPIC_ICR_DEST_SHIFT      24    /* in ICR high (bits 63:56 of the ICR) */
#define XAPIC_MAX_ID              0xFEu /* 0xFF is the broadcast destination */
/* A STARTUP IPI's vector is the page number of the real-mode start address: the AP begins at
 * CS = vector << 8, IP = 0 (SDM Vol. 3A §9.4.4.1 and §11.6.1). */
#define LAPIC_ICR_STARTUP_PAGE_SHIFT 12
#define X2APIC_BROADCAST_ID          0xFFFFFFFFu

/* x2APIC logical ID (§11.12.10.2): cluster = ID[19:4] in LDR 31:16, one bit 1 << ID[3:0]. */
#define X2APIC_LDR(id) ((((id) >> 4) << 16) | (1u << ((id)&0xFu)))

/* Vectors 0-15 are reserved: the APIC refuses them with an illegal-vector error (§11.5.2). */
#define LAPIC_FIRST_VALID_VECTOR 16

/* MSI address and data (§11.11, Figures 11-24 and 11-25). */
#define MSI_ADDR_BASE             0xFEE00000ULL
#define MSI_ADDR_BASE_MASK        0xFFF00000ULL
#define MSI_ADDR_DEST_SHIFT       12
#define MSI_ADDR_DEST_MASK        0xFFu
#define MSI_ADDR_REDIRECTION_HINT (1u << 3)
#define MSI_ADDR_DEST_LOGICAL     (1u << 2)
#define MSI_DATA_VECTOR_MASK      0xFFu
#define MSI_DATA_DELIVERY_MASK    (7u << 8)
#define MSI_DATA_FIXED            (0u << 8)
#define MSI_DATA_LOWEST_PRIORITY  (1u << 8)
#define MSI_DATA_LEVEL_ASSERT     (1u << 14)
#define MSI_DATA_LEVEL_TRIGGER    (1u << 15)

#endif
