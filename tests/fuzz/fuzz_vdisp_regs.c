/* Fuzzes the virtual monitor's display engine with a hostile guest: the input writes any value
 * to any display register (the interesting ones more often: AUX, planes, the pipe, PLLs, the
 * interrupt banks), reads them, lets time pass (any amount, backwards too), and plugs or
 * unplugs monitors of any size.  After every operation:
 *   - the interrupt summary is only the banks' master bits;
 *   - a scan-out the decode accepts is sane: the plane inside the pipe, the stride holding a
 *     row, the range it reads [first, end) non-empty, starting at the surface or after it and
 *     not wrapping (the caller checks it against the guest's memory);
 *   - at most one vblank event per advance, however much time passed;
 *   - a reset leaves no page of register storage but the straps'.
 * Bounded work is what the sanitizers and the fuzzer's timeout see. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "tests/fuzz/fuzz_cursor.h"
#include "vmm/vgpu/i915/display/vdisp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint32_t hot[] = {
    GEN9_DP_AUX_CH_CTL(3),
    GEN9_DP_AUX_CH_DATA(3, 0),
    GEN9_DP_AUX_CH_DATA(3, 1),
    GEN9_DP_AUX_CH_DATA(3, 4),
    GEN9_PLANE_CTL(1),
    GEN9_PLANE_STRIDE(1),
    GEN9_PLANE_POS(1),
    GEN9_PLANE_SIZE(1),
    GEN9_PLANE_OFFSET(1),
    GEN9_PLANE_SURF(1),
    GEN9_PLANE_SURF(2),
    GEN9_CURBASE_A,
    GEN9_PIPECONF_A,
    GEN9_PIPESRC_A,
    GEN9_HTOTAL_A,
    GEN9_VTOTAL_A,
    GEN9_VBLANK_A,
    GEN9_PIPE_LINK_M1_A,
    GEN9_PIPE_LINK_N1_A,
    GEN9_DPLL_CTRL1,
    GEN9_DPLL_CTRL2,
    GEN9_LCPLL1_CTL,
    GEN9_LCPLL2_CTL,
    GEN9_DE_PIPE_IMR(0),
    GEN9_DE_PIPE_IIR(0),
    GEN9_DE_PIPE_IER(0),
    GEN9_SDE_IMR,
    GEN9_SDE_IER,
    GEN9_SDE_IIR,
    GEN9_PCH_PORT_HOTPLUG,
    GEN9_DDI_BUF_CTL(3),
    GEN9_DP_TP_CTL(3),
    GEN9_DBUF_CTL,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct vdisp d;
    struct cursor c = { data, size };
    struct vdisp_monitor m = { true, 512, 384, 30 };
    vdisp_init(&d, &m);
    uint64_t now = 1000000000ull;
    for (unsigned op = 0; op < 256 && c.n; op++) {
        unsigned kind = (unsigned)take(&c, 1) % 8;
        uint32_t off = kind < 4
                         ? hot[take(&c, 1) % (sizeof hot / sizeof hot[0])]
                         : (GEN9_DISPLAY_BASE + (uint32_t)take(&c, 3) * 4u) % GEN9_PCH_DISPLAY_END;
        uint32_t val = (uint32_t)take(&c, 4);
        const char *why;
        uint64_t events = d.st.vblank_events;
        switch (kind) {
        case 0:
        case 1:
        case 2:
        case 4:
            vdisp_write(&d, off, val, now);
            break;
        case 3:
        case 5:
            (void)vdisp_read(&d, off, now);
            break;
        case 6:
            now += val * 1000ull;
            if (val & 1)
                now -= 3 * (val & 0xFFFF); /* the clock may seem to go back a little */
            vdisp_tick(&d, now);
            break;
        default: {
            struct vdisp_monitor p = { (val & 1) != 0, val >> 20 & 0xFFF, val >> 8 & 0xFFF,
                                       val & 0x3F };
            (void)vdisp_plug(&d, &p, now, &why);
            break;
        }
        }
        if (d.st.vblank_events > events + 1)
            abort();
        if (vdisp_irq_summary(&d.irq) & ~(GEN9_MASTER_DE_PIPE_IRQ(0) | GEN9_MASTER_DE_PORT_IRQ |
                                          GEN9_MASTER_DE_MISC_IRQ | GEN9_MASTER_DE_PCH_IRQ))
            abort();
        struct vdisp_scanout s;
        if (vdisp_scanout(&d, &s) == VDISP_SCAN_PICTURE) {
            if (s.x + s.w > s.pipe_w || s.y + s.h > s.pipe_h || !s.stride ||
                (uint64_t)(s.src_x + s.w) * 4u > s.stride || s.end <= s.first || s.first < s.surf)
                abort();
        }
    }
    vdisp_reset(&d);
    if (d.store.pages > 3)
        abort();
    vdisp_free(&d);
    return 0;
}
