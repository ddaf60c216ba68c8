/* Extended page tables: building and changing a 4-level EPT paging structure for one guest.
 * Pure: tables are reached through caller-supplied callbacks (allocate a zeroed 4 KiB page,
 * free it, turn its physical address into a pointer), so the same code runs in the hypervisor
 * and over a host arena in tests.  Mechanism only: which ranges a guest gets is vmm/ policy.
 *
 * Hardware facts, Intel SDM Vol. 3C §29.3 "The Extended Page Table Mechanism (EPT)" (2023
 * numbering; §28.3 in older editions), Tables "Format of an EPT PML4 Entry", "... EPT
 * Page-Directory-Pointer-Table Entry", "... EPT Page-Directory Entry that Maps a 2-MByte Page",
 * "... EPT Page-Directory Entry that References an EPT Page Table", "... EPT Page-Table Entry";
 * the EPTP format: §25.6.11 Table "Format of Extended-Page-Table Pointer"; memory types:
 * §29.3.7 and Vol. 3A §12.3 (UC=0, WC=1, WT=4, WP=5, WB=6); the capability MSR
 * IA32_VMX_EPT_VPID_CAP: Appendix A.10.
 *
 * After changing a live structure the caller must INVEPT (§29.4.3); this code never does. */
#ifndef TESSERA_ARCH_X86_VMX_PURE_EPT_H
#define TESSERA_ARCH_X86_VMX_PURE_EPT_H

#include <stdbool.h>
#include <stdint.h>

/* --- EPT paging-structure entries (§29.3.2) --- */
#define EPT_ENTRY_READ          (1ULL << 0) /* reads allowed */
#define EPT_ENTRY_WRITE         (1ULL << 1) /* writes allowed */
#define EPT_ENTRY_EXEC          (1ULL << 2) /* instruction fetches allowed (supervisor mode) */
#define EPT_ENTRY_PERM_MASK     (EPT_ENTRY_READ | EPT_ENTRY_WRITE | EPT_ENTRY_EXEC)
#define EPT_ENTRY_MEMTYPE_SHIFT 3 /* bits 5:3: EPT memory type, leaf entries only */
#define EPT_ENTRY_MEMTYPE_MASK  (7ULL << EPT_ENTRY_MEMTYPE_SHIFT)
#define EPT_ENTRY_IGNORE_PAT    (1ULL << 6) /* leaf entries only */
#define EPT_ENTRY_LARGE         (1ULL << 7) /* in a PDE: maps a 2 MiB page (1 GiB in a PDPTE) */
#define EPT_ENTRY_ADDR_MASK     0x000FFFFFFFFFF000ULL /* bits 51:12: next table or 4 KiB page */
#define EPT_ENTRY_ADDR_2M_MASK  0x000FFFFFFFE00000ULL /* bits 51:21 of a 2 MiB leaf */
/* An entry is "present" when any of bits 2:0 is set (§29.3.2). */

/* --- Memory types (§29.3.7; Vol. 3A §12.3 Table "Memory Types ...") --- */
#define EPT_MT_UC 0u
#define EPT_MT_WC 1u
#define EPT_MT_WT 4u
#define EPT_MT_WP 5u
#define EPT_MT_WB 6u
/* 2, 3 and 7 are reserved: a leaf with them causes an EPT misconfiguration (§29.3.3.1). */

/* --- EPT pointer (§25.6.11) --- */
#define EPTP_MEMTYPE_SHIFT     0           /* bits 2:0: memory type for the paging structures */
#define EPTP_WALK_LENGTH_SHIFT 3           /* bits 5:3: page-walk length minus 1 */
#define EPTP_ENABLE_AD         (1ULL << 6) /* accessed/dirty flags (not used by Tessera) */
#define EPTP_ADDR_MASK         EPT_ENTRY_ADDR_MASK /* bits 51:12: PML4 table */
#define EPT_LEVELS             4                   /* PML4, PDPT, PD, PT */

/* --- IA32_VMX_EPT_VPID_CAP (Appendix A.10) --- */
#define EPT_CAP_EXEC_ONLY                (1ULL << 0)  /* execute-only translations supported */
#define EPT_CAP_WALK_4                   (1ULL << 6)  /* page-walk length of 4 supported */
#define EPT_CAP_MT_UC                    (1ULL << 8)  /* EPTP memory type UC allowed */
#define EPT_CAP_MT_WB                    (1ULL << 14) /* EPTP memory type WB allowed */
#define EPT_CAP_2M_PAGES                 (1ULL << 16) /* PDEs may map 2 MiB pages */
#define EPT_CAP_1G_PAGES                 (1ULL << 17) /* PDPTEs may map 1 GiB pages */
#define EPT_CAP_INVEPT                   (1ULL << 20) /* INVEPT supported */
#define EPT_CAP_AD                       (1ULL << 21) /* accessed and dirty flags */
#define EPT_CAP_INVEPT_SINGLE            (1ULL << 25) /* single-context INVEPT */
#define EPT_CAP_INVEPT_ALL               (1ULL << 26) /* all-context INVEPT */
#define VPID_CAP_INVVPID                 (1ULL << 32) /* INVVPID supported */
#define VPID_CAP_INVVPID_ADDR            (1ULL << 40) /* individual-address INVVPID */
#define VPID_CAP_INVVPID_SINGLE          (1ULL << 41) /* single-context INVVPID */
#define VPID_CAP_INVVPID_ALL             (1ULL << 42) /* all-context INVVPID */
#define VPID_CAP_INVVPID_SINGLE_NOGLOBAL (1ULL << 43) /* single-context-retaining-globals */

/* What this EPT code relies on: 4-level walks, WB structures, 2 MiB pages, INVEPT
 * (single-context).  Returns the bits of that set missing from `cap` (0 = usable). */
#define EPT_CAP_NEEDED \
    (EPT_CAP_WALK_4 | EPT_CAP_MT_WB | EPT_CAP_2M_PAGES | EPT_CAP_INVEPT | EPT_CAP_INVEPT_SINGLE)
uint64_t ept_cap_missing(uint64_t ept_vpid_cap);

/* --- Sizes --- */
#define EPT_PAGE_4K   0x1000ULL
#define EPT_PAGE_2M   0x200000ULL
#define EPT_ENTRIES   512u
#define EPT_GPA_LIMIT (1ULL << 48) /* 4 levels translate 48 GPA bits */
#define EPT_HPA_LIMIT (1ULL << 52) /* entries hold address bits 51:12 */

/* --- Permissions for ept_map/ept_protect (same bit values as the entry bits) --- */
#define EPT_PERM_R   ((unsigned)EPT_ENTRY_READ)
#define EPT_PERM_W   ((unsigned)EPT_ENTRY_WRITE)
#define EPT_PERM_X   ((unsigned)EPT_ENTRY_EXEC)
#define EPT_PERM_RWX (EPT_PERM_R | EPT_PERM_W | EPT_PERM_X)

/* --- Errors --- */
#define EPT_EINVAL \
    (-1)                /* misaligned or zero size, range beyond 48-bit GPA / 52-bit HPA,
                           * bad perms (none, or write without read: §29.3.3.1), bad memtype */
#define EPT_ENOMEM (-2) /* alloc_page returned 0; nothing was changed */
#define EPT_ENOENT (-3) /* ept_walk: not mapped; ept_protect: part of the range not mapped */
const char *ept_strerror(int err);

/* Where the tables come from.  alloc_page returns the physical address of a ZEROED, 4 KiB
 * aligned page, or 0 on failure; phys_to_virt makes it addressable. */
struct ept_ops {
    uint64_t (*alloc_page)(void *ctx);
    void (*free_page)(void *ctx, uint64_t phys);
    void *(*phys_to_virt)(void *ctx, uint64_t phys);
    void *ctx;
};

struct ept {
    uint64_t pml4; /* physical address of the PML4 table (0 before init/after destroy) */
    struct ept_ops ops;
    unsigned tables; /* paging-structure pages in use, the PML4 included */
};

/* Allocates an empty PML4.  0, EPT_EINVAL (NULL or incomplete ops) or EPT_ENOMEM. */
int ept_init(struct ept *e, const struct ept_ops *ops);

/* Maps [gpa, gpa+size) to [hpa, hpa+size) with `perms` (EPT_PERM_*) and `memtype` (EPT_MT_*),
 * replacing whatever was there.  Uses a 2 MiB page wherever gpa and hpa are both 2 MiB aligned
 * and at least 2 MiB remain, 4 KiB pages elsewhere; a 2 MiB page that is only partly changed is
 * first split into 512 equivalent 4 KiB entries, and a page table whose whole 2 MiB is replaced
 * by a large page is freed.  All of gpa, hpa, size must be 4 KiB multiples, size > 0.
 * All-or-nothing: on EPT_ENOMEM no translation has changed. */
int ept_map(struct ept *e, uint64_t gpa, uint64_t hpa, uint64_t size, unsigned perms,
            unsigned memtype);

/* Removes every translation in [gpa, gpa+size) (holes are fine), splitting 2 MiB pages that
 * are only partly removed, and frees page tables/directories left empty.  0, EPT_EINVAL, or
 * EPT_ENOMEM (a split needed a page; nothing changed). */
int ept_unmap(struct ept *e, uint64_t gpa, uint64_t size);

/* Changes the permissions of every page in [gpa, gpa+size), keeping addresses and memory
 * types; splits partly covered 2 MiB pages.  The whole range must be mapped (else EPT_ENOENT,
 * nothing changed).  0, EPT_EINVAL, EPT_ENOENT or EPT_ENOMEM (nothing changed). */
int ept_protect(struct ept *e, uint64_t gpa, uint64_t size, unsigned perms);

/* Translates one GPA the way the processor would (for present entries).  On success returns 0
 * and fills the non-NULL outputs: host address (page base + offset), permissions, memory type
 * and the size of the page that maps it (4 KiB or 2 MiB).  EPT_ENOENT when not mapped,
 * EPT_EINVAL when gpa is beyond 48 bits or e is not initialised. */
int ept_walk(const struct ept *e, uint64_t gpa, uint64_t *hpa, unsigned *perms, unsigned *memtype,
             uint64_t *page_size);

/* The VMCS EPT pointer: PML4 address | page-walk length 4 | WB paging structures. */
uint64_t ept_eptp(const struct ept *e);

/* Frees every table, the PML4 included; the struct may be ept_init'ed again. */
void ept_destroy(struct ept *e);

#endif
