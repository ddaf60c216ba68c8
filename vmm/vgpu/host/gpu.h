/* The GPU side of the hypervisor at boot: which iGPU backend drives the graphics memory (the
 * real Gen9 GPU, or the software model where none exists, and the log says which), and the
 * GGTT partitioned for the configured guests (gtt/). */
#ifndef TESSERA_VMM_GPU_H
#define TESSERA_VMM_GPU_H

#include <stdbool.h>

#include "config/config.h"
#include "drivers/igpu/igpu.h"
#include "drivers/igpu/model/igpu_model.h"
#include "gtt/gtt.h"

struct gpu_state {
    bool ready;
    char error[240];          /* why the GPU side is not up */
    char found[160];          /* what PCI discovery found at 00:02.0 */
    struct igpu *igpu;        /* the backend in use */
    struct igpu_model *model; /* the software model, when it is the backend */
    uint64_t gsm_phys;        /* the model's GGTT entries in host RAM */
    uint64_t scratch_page;    /* where GGTT entries no vGPU owns point */
    uint64_t
        vgpu_scratch[TESSERA_MAX_GUESTS]; /* each vGPU's own scratch page (gtt/ vgpu_scratch) */
    struct gtt_layout layout;
    struct gtt gtt;
};

extern struct gpu_state gpu;

/* Discovers the iGPU, brings up the backend and partitions the GGTT for `cfg`'s guests. */
bool gpu_init(const struct cfg *cfg);

#endif
