/*
 * Gen9 model: submission helpers. They do what a driver does — write a context image and
 * ring contents into graphics memory, then submit through ELSP — so tests, the benchmark and
 * the scanner's fuzz property check can run command buffers with a few calls.
 */
#include <stdlib.h>
#include <string.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/model/model_internal.h"

#define STATE_PAGE_DW (GEN9_GTT_PAGE_SIZE / 4u)

int igpu_model_ctx_init(struct igpu_model *m, enum igpu_engine e, uint32_t lrca,
                        uint32_t ring_gaddr, uint32_t ring_size)
{
    /* Built on the heap: two pages are too much for the hypervisor's small stacks. */
    uint32_t *state;
    uint8_t *page;
    int rc;

    if (!m || !model_engine(m, e) || (lrca & GEN9_GTT_PAGE_MASK))
        return IGPU_EINVAL;
    state = malloc(GEN9_GTT_PAGE_SIZE);
    page = calloc(1, GEN9_GTT_PAGE_SIZE);
    if (!state || !page) {
        free(state);
        free(page);
        return IGPU_ENOMEM;
    }
    rc = igpu_lrc_init_state(state, STATE_PAGE_DW, e, NULL, ring_gaddr, ring_size, 0, 0);
    if (rc == IGPU_OK)
        rc = igpu_model_gm_write(m, (uint64_t)lrca + GEN9_LRC_PPHWSP_PN * GEN9_GTT_PAGE_SIZE, page,
                                 GEN9_GTT_PAGE_SIZE);
    if (rc == IGPU_OK) {
        /* Stored little-endian, as the engine reads it. */
        for (unsigned i = 0; i < STATE_PAGE_DW; i++) {
            uint8_t *p = page + 4u * i;
            p[0] = (uint8_t)state[i];
            p[1] = (uint8_t)(state[i] >> 8);
            p[2] = (uint8_t)(state[i] >> 16);
            p[3] = (uint8_t)(state[i] >> 24);
        }
        rc = igpu_model_gm_write(m, (uint64_t)lrca + GEN9_LRC_STATE_OFFSET, page,
                                 GEN9_GTT_PAGE_SIZE);
    }
    free(state);
    free(page);
    return rc;
}

static int read32(struct igpu_model *m, uint64_t gaddr, uint32_t *v)
{
    uint8_t b[4];
    int rc = igpu_model_gm_read(m, gaddr, b, 4);
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return rc;
}

static int write32(struct igpu_model *m, uint64_t gaddr, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    return igpu_model_gm_write(m, gaddr, b, 4);
}

int igpu_model_submit_ring(struct igpu_model *m, enum igpu_engine e, uint32_t lrca, uint32_t ctx_id,
                           const uint32_t *cmds, size_t n_dw)
{
    uint64_t st = (uint64_t)lrca + GEN9_LRC_STATE_OFFSET;
    uint32_t head, tail, start, ctl, size, room;
    size_t padded = (n_dw + 1u) & ~(size_t)1u; /* the tail is qword aligned */
    int rc;

    if (!m || !model_engine(m, e) || (n_dw && !cmds) || (lrca & GEN9_GTT_PAGE_MASK))
        return IGPU_EINVAL;
    if ((rc = read32(m, st + GEN9_CTX_RING_HEAD * 4u, &head)) ||
        (rc = read32(m, st + GEN9_CTX_RING_TAIL * 4u, &tail)) ||
        (rc = read32(m, st + GEN9_CTX_RING_START * 4u, &start)) ||
        (rc = read32(m, st + GEN9_CTX_RING_CTL * 4u, &ctl)))
        return rc;
    head &= GEN9_HEAD_ADDR;
    tail &= GEN9_TAIL_ADDR;
    size = ((ctl & GEN9_RING_NR_PAGES) >> 12) * GEN9_GTT_PAGE_SIZE + GEN9_GTT_PAGE_SIZE;
    if (!(ctl & GEN9_RING_VALID) || head >= size || tail >= size)
        return IGPU_EINVAL;
    /* Keep one qword free so a full ring is never mistaken for an empty one. */
    room = (head + size - tail - 8u) % size;
    if (padded * 4u > room)
        return IGPU_EBUSY;
    for (size_t i = 0; i < padded;) {
        /* Copy up to the end of the ring (or of a staging block) at once. */
        uint8_t blk[256];
        size_t k = (size - tail) / 4u;
        if (k > padded - i)
            k = padded - i;
        if (k > sizeof(blk) / 4u)
            k = sizeof(blk) / 4u;
        for (size_t j = 0; j < k; j++) {
            uint32_t dw = i + j < n_dw ? cmds[i + j] : GEN9_MI_NOOP;
            blk[4 * j] = (uint8_t)dw;
            blk[4 * j + 1] = (uint8_t)(dw >> 8);
            blk[4 * j + 2] = (uint8_t)(dw >> 16);
            blk[4 * j + 3] = (uint8_t)(dw >> 24);
        }
        if ((rc = igpu_model_gm_write(m, (uint64_t)start + tail, blk, k * 4u)))
            return rc;
        tail = (uint32_t)((tail + k * 4u) % size);
        i += k;
    }
    if ((rc = write32(m, st + GEN9_CTX_RING_TAIL * 4u, tail)))
        return rc;
    return igpu_elsp_submit(&m->igpu, e,
                            gen9_ctx_desc(lrca, ctx_id,
                                          GEN9_CTX_PRIVILEGE | (GEN9_CTX_ADDR_LEGACY_32B
                                                                << GEN9_CTX_ADDRESSING_MODE_SHIFT)),
                            0);
}
