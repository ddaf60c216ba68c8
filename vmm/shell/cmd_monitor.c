/* Shell command `monitor <vm> on|off|<w>x<h>[@<hz>]`: plugs in, unplugs or re-modes the virtual
 * monitor of a guest's vGPU, as a hotplug the guest's driver sees (docs/operator-guide.md). */
#include "vmm/shell/commands.h"

#include "vmm/vgpu/host/vgpu_host.h"
#include "vmm/vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "<w>x<h>" or "<w>x<h>@<hz>"; hz keeps its value without "@". */
static bool parse_mode(const char *s, uint32_t *w, uint32_t *h, uint32_t *hz)
{
    char *end;
    unsigned long a = strtoul(s, &end, 10);
    if (end == s || *end != 'x')
        return false;
    const char *p = end + 1;
    unsigned long b = strtoul(p, &end, 10);
    if (end == p || (*end && *end != '@') || a > UINT32_MAX || b > UINT32_MAX)
        return false;
    if (*end == '@') {
        p = end + 1;
        unsigned long c = strtoul(p, &end, 10);
        if (end == p || *end || c > UINT32_MAX)
            return false;
        *hz = (uint32_t)c;
    }
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return true;
}

enum shell_status cmd_monitor(int argc, char **argv)
{
    if (!vgpu_host.ready) {
        shell_error("no vGPUs: %s",
                    vgpu_host.error[0] ? vgpu_host.error : "VT-x or the GPU is not available");
        return SHELL_FAILED;
    }
    struct vm *vm = vm_lookup(argv[1]);
    if (!vm) {
        shell_error("no guest '%s' ('vms' lists them)", argv[1]);
        return SHELL_FAILED;
    }
    const struct cfg_guest *g = vm->cfg;
    struct vgpu_monitor m = { true, g->display_width_px, g->display_height_px, g->display_hz };
    if (!strcmp(argv[2], "off"))
        m.connected = false;
    else if (strcmp(argv[2], "on") && !parse_mode(argv[2], &m.width, &m.height, &m.hz))
        return SHELL_USAGE;
    const char *why;
    if (!vgpu_set_monitor(vgpu_get(vgpu_host.dev, vm->id), &m, false, &why)) {
        shell_error("guest %u (%s): %s", vm->id, g->name, why);
        return SHELL_FAILED;
    }
    if (m.connected)
        printf("monitor %s: DP-1 connected, %ux%u at %u Hz preferred; hotplug sent\n", g->name,
               m.width, m.height, m.hz);
    else
        printf("monitor %s: DP-1 disconnected; hotplug sent\n", g->name);
    return SHELL_OK;
}
