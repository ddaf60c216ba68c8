/* The flat "physical memory" the model benchmarks give the software Gen9 model, the model on
 * it, and their clock.  Include after defining MEM_SIZE (bytes), DATA_PA (where graphics pages
 * start; the GGTT entries lie below), ENTRIES and GM_SIZE.  Header-only: each benchmark is one
 * program. */
#ifndef TESSERA_BENCH_BENCH_IGPU_MEM_H
#define TESSERA_BENCH_BENCH_IGPU_MEM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/model/igpu_model.h"

static uint8_t *mem;

static int mread(void *ctx, uint64_t pa, void *buf, size_t len)
{
    (void)ctx;
    if (pa >= MEM_SIZE || len > MEM_SIZE - pa)
        return -1;
    memcpy(buf, mem + pa, len);
    return 0;
}

static int mwrite(void *ctx, uint64_t pa, const void *buf, size_t len)
{
    (void)ctx;
    if (pa >= MEM_SIZE || len > MEM_SIZE - pa)
        return -1;
    memcpy(mem + pa, buf, len);
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The model with default costs over mem (allocated here), graphics page i mapped to DATA_PA +
 * i pages; NULL if anything fails. */
static struct igpu_model *bench_model(void)
{
    struct igpu_model_config cfg;
    struct igpu_model *m;
    mem = calloc(1, MEM_SIZE);
    if (!mem)
        return NULL;
    igpu_model_config_defaults(&cfg);
    cfg.mem = (struct igpu_model_mem){ mread, mwrite, NULL };
    cfg.gsm_base = 0;
    cfg.ggtt_entries = ENTRIES;
    cfg.aperture_size = GM_SIZE;
    if (igpu_model_create(&cfg, &m) != IGPU_OK)
        return NULL;
    for (uint32_t i = 0; i < ENTRIES; i++)
        igpu_ggtt_write(igpu_model_igpu(m), i,
                        gen9_ggtt_pte_encode(DATA_PA + (uint64_t)i * GEN9_GTT_PAGE_SIZE));
    igpu_ggtt_flush(igpu_model_igpu(m));
    return m;
}

#endif
