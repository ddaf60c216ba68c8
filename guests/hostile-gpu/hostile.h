/* hostile-gpu's parts: the attacks of main.c, the cross-guest attacks of iso_attacks.c
 * (each a way across the guest boundary) and the victim role (victim.c) they are aimed at. */
#ifndef TESSERA_GUESTS_HOSTILE_GPU_HOSTILE_H
#define TESSERA_GUESTS_HOSTILE_GPU_HOSTILE_H

#include "guests/lib/guest.h"
#include "guests/lib/vgpu.h"

#include "drivers/igpu/gen9_regs.h"

#include <stdbool.h>
#include <stdint.h>

#define NAME              "hostile-gpu"
#define ATTACK_TIMEOUT_US (10u * 1000u * 1000u)

/* What each side leaves where the other could see it, so that anything else is foreign. */
#define GPR_DWORDS          (GEN9_CS_GPR_COUNT * 2u) /* sixteen 64-bit GPRs */
#define HOSTILE_GPR_TAG     0x4B1D0000u              /* | dword index */
#define HOSTILE_SCRATCH_TAG 0x5C5C5C5Cu
#define HOSTILE_OWN_TAG     0xF0000000u /* | word index, its own fenced data */
#define VICTIM_GPR_TAG      0x71C70000u /* | dword index */
#define VICTIM_SCRATCH_TAG  0x71C7C0DEu
#define VICTIM_DATA_TAG     0x71C7DA7Au
/* The fence of the de-tiling attack: 256 KiB, and the victim's fenced data is as big. */
#define DETILE_BYTES (256u * 1024u)

extern struct vgpu_kiosk k;

/* The last page of the guest's low window whose GGTT entry it never wrote; false if none of
 * the last 16 is. */
bool hostile_unmapped_page(struct vgpu *v, uint64_t *gm);
/* Submits a workload and waits for it; true if it ran. */
bool hostile_run(struct vgpu *v, const uint32_t *dw, uint32_t n);

/* iso_attacks.c: each prints its attack line and exactly one result line; true if contained. */
bool attack_fence_detile(void);
bool attack_gpr_leak(void);
bool attack_gpr_plant(void);
bool attack_scratch_share(void);

/* victim.c: the guest the cross-guest attacks aim at (cmdline role=victim); never returns. */
int victim_main(const struct tessera_boot_info *boot);

#endif
