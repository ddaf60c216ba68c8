/* The kiosk personality: the vGPU Tessera's own guests drive (docs/vgpu-abi.md).  One blitter
 * with an execlist port, where one submission is one workload and one completion; the GT
 * interrupt registers of that engine; a primary plane in plain registers that the kiosk wall
 * shows; Tessera's balloon and re-placement extension of the PV info page (in the core). */
#ifndef TESSERA_VMM_VGPU_KIOSK_KIOSK_H
#define TESSERA_VMM_VGPU_KIOSK_KIOSK_H

#include "vmm/vgpu/personality.h"

extern const struct vgpu_personality vgpu_kiosk;

#endif
