/* hostile-mem: a guest that attacks the hypervisor's isolation, one attack per run, chosen by
 * the command-line word attack=<name> (default all).  Each attack first prints
 *
 *   hostile-mem: attack <name>
 *
 * then does something a contained guest must not get away with:
 *   read   reads a byte at guest-physical ram_bytes + 64 MiB, outside its RAM
 *   write  writes the LAPIC page (0xFEE00000), which the guest does not own, then 3 GiB
 *   vmxon  executes VMXON with a region in its own RAM (nested VMX is not offered)
 *   msr    WRMSR to IA32_SYSENTER_CS (0x174; msr=<n> picks another), outside the allow-list
 *   cpuid  not an attack: prints the hypervisor's CPUID signature and whether VMX is hidden,
 *          "hostile-mem: cpuid signature TesseraVMM vmx=0"
 *   all    msr, then vmxon, then read
 *
 * The hypervisor is expected to stop the guest (EPT violation, forbidden instruction) or to
 * inject a fault (#GP for the MSR, perhaps #UD for VMXON).  An injected fault is reported by the
 * library's exception handler ("guest: caught #GP at rip ..."), followed by
 * "hostile-mem: <attack> contained by #GP", and the next attack runs.  An attack that completes
 * prints "hostile-mem: survived <attack>".  When all attacks are done the guest prints
 * "hostile-mem: done, <k> of <n> attacks survived" and exits with status k. */
#include "guests/lib/guest.h"
#include "guests/lib/x86.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MIB             (1024ULL * 1024)
#define READ_BEYOND_RAM (64 * MIB)
#define WRITE_HIGH_GPA  0xC0000000ULL /* 3 GiB */
#define MSR_VALUE       0x10
#define VMX_REGION_SIZE 4096

static const struct tessera_boot_info *boot;
static uint64_t msr_index = MSR_IA32_SYSENTER_CS;
static uint8_t vmxon_region[VMX_REGION_SIZE] __attribute__((aligned(4096)));

static void attack_read(void *arg)
{
    uint64_t gpa = boot->ram_bytes + READ_BEYOND_RAM;
    if (!guest_map_uncached(gpa, 1)) {
        printf("hostile-mem: cannot map 0x%" PRIx64 " in the guest's page tables\n", gpa);
        return;
    }
    printf("hostile-mem: reading gpa 0x%" PRIx64 "\n", gpa);
    uint8_t v = *(volatile uint8_t *)(uintptr_t)gpa;
    printf("hostile-mem: read 0x%02x from gpa 0x%" PRIx64 "\n", v, gpa);
}

static bool write_u32(uint64_t gpa)
{
    if (!guest_map_uncached(gpa, 4)) {
        printf("hostile-mem: cannot map 0x%" PRIx64 " in the guest's page tables\n", gpa);
        return false;
    }
    printf("hostile-mem: writing gpa 0x%" PRIx64 "\n", gpa);
    *(volatile uint32_t *)(uintptr_t)gpa = 0xdeadbeef;
    printf("hostile-mem: wrote gpa 0x%" PRIx64 "\n", gpa);
    return true;
}

static void attack_write(void *arg)
{
    if (write_u32(APIC_BASE_DEFAULT))
        write_u32(WRITE_HIGH_GPA);
}

static void attack_vmxon(void *arg)
{
    uint64_t region = (uint64_t)(uintptr_t)vmxon_region;
    uint64_t rflags;
    printf("hostile-mem: vmxon with region at gpa 0x%" PRIx64 "\n", region);
    __asm__ volatile("vmxon %1\n\tpushfq\n\tpop %0" : "=r"(rflags) : "m"(region) : "memory", "cc");
    /* CF or ZF set: VMfailInvalid or VMfailValid, the hypervisor emulating a failure. */
    printf("hostile-mem: vmxon returned, rflags 0x%" PRIx64 "\n", rflags);
}

static void attack_msr(void *arg)
{
    printf("hostile-mem: wrmsr 0x%" PRIx64 " <- 0x%x\n", msr_index, MSR_VALUE);
    x86_wrmsr((uint32_t)msr_index, MSR_VALUE);
}

static void check_cpuid(void *arg)
{
    struct x86_cpuid hv = x86_cpuid(TESSERA_CPUID_LEAF, 0);
    char sig[13];
    memcpy(sig + 0, &hv.ebx, 4);
    memcpy(sig + 4, &hv.ecx, 4);
    memcpy(sig + 8, &hv.edx, 4);
    sig[12] = '\0';
    for (char *c = sig; *c; c++)
        if (*c < 0x20 || *c > 0x7e)
            *c = '?';
    struct x86_cpuid basic = x86_cpuid(1, 0);
    printf("hostile-mem: cpuid signature %s vmx=%d\n", sig[0] ? sig : "(none)",
           (basic.ecx & CPUID_1_ECX_VMX) != 0);

    /* Every CPUID exits, so timing a batch gives the cost of one round trip through the
     * hypervisor's exit dispatcher, in TSC ticks (in Bochs one tick is one emulated cycle).  The
     * fastest of several batches, so a slice ending in the middle does not count. */
    enum { BATCH = 200, ROUNDS = 5 };
    uint64_t best = UINT64_MAX;
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t t0 = x86_rdtsc();
        for (int i = 0; i < BATCH; i++)
            (void)x86_cpuid(0, 0);
        uint64_t t = (x86_rdtsc() - t0) / BATCH;
        if (t < best)
            best = t;
    }
    printf("hostile-mem: cpuid exit round trip %" PRIu64 " TSC ticks\n", best);
}

struct attack {
    const char *name;
    void (*run)(void *arg);
    bool hostile; /* false: a check that is supposed to complete */
};

static const struct attack attacks[] = {
    { "read", attack_read, true }, { "write", attack_write, true }, { "vmxon", attack_vmxon, true },
    { "msr", attack_msr, true },   { "cpuid", check_cpuid, false },
};

static const char *const all_sequence[] = { "msr", "vmxon", "read" };

static const struct attack *find_attack(const char *name)
{
    for (size_t i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++)
        if (strcmp(attacks[i].name, name) == 0)
            return &attacks[i];
    return NULL;
}

/* Returns true if a hostile attack was not stopped. */
static bool run_attack(const struct attack *a)
{
    printf("hostile-mem: attack %s\n", a->name);
    struct guest_trap trap;
    if (guest_trap_try(a->run, NULL, &trap)) {
        printf("hostile-mem: %s contained by %s\n", a->name, guest_trap_name(trap.vector));
        return false;
    }
    if (!a->hostile)
        return false;
    printf("hostile-mem: survived %s\n", a->name);
    return true;
}

int guest_main(const struct tessera_boot_info *b)
{
    boot = b;
    char name[16] = "all";
    int len = guest_cmdline_get(boot, "attack", name, sizeof(name));
    if (len >= (int)sizeof(name) || (len >= 0 && strcmp(name, "all") != 0 && !find_attack(name))) {
        printf("hostile-mem: unknown attack '%s'; known: read write vmxon msr cpuid all\n", name);
        return 2;
    }
    guest_cmdline_u64(boot, "msr", &msr_index);

    unsigned survived = 0, tried = 0;
    if (strcmp(name, "all") == 0) {
        for (size_t i = 0; i < sizeof(all_sequence) / sizeof(all_sequence[0]); i++, tried++)
            survived += run_attack(find_attack(all_sequence[i]));
    } else {
        const struct attack *a = find_attack(name);
        survived += run_attack(a);
        tried += a->hostile;
    }
    printf("hostile-mem: done, %u of %u attacks survived\n", survived, tried);
    return (int)survived;
}
