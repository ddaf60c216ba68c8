/* The software GPU model used by more than one CPU at a time.  The render loop's CPU runs the
 * model between its render steps without the hypervisor lock, as a GPU runs beside the CPUs
 * (vgpu_host.c), while guests' exits on other CPUs reach the same model through the backend
 * (register, GGTT and fence writes, the aperture) and a drain may run it in an exit.  Each of
 * those, and each piece of its execution, holds the model lock, so the model sees one user at a
 * time, as a GPU serves one request at a time.  The lock is the innermost: nothing else is
 * taken while it is held. */
#ifndef TESSERA_VMM_VGPU_HOST_GPU_LOCK_H
#define TESSERA_VMM_VGPU_HOST_GPU_LOCK_H

#include "drivers/igpu/igpu.h"

void gpu_model_lock(void);
void gpu_model_unlock(void);

/* A backend whose every operation is `inner`'s, holding the model lock; `inner` must outlive
 * it.  One at a time: a second call replaces the first. */
struct igpu *gpu_locked_igpu(struct igpu *inner);

#endif
