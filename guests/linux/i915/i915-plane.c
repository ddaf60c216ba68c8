/* i915-plane: reads, or sets, the surface of pipe A's primary plane from user space, behind
 * i915's back: the hostile guest of the display's isolation check (docs/vgpu-i915.md "Display").
 *
 *   i915-plane                 prints "PLANE_SURF 0x... SURFLIVE 0x... PLANE_CTL 0x..."
 *   i915-plane <surface>       writes PLANE_SURF (a graphics address, hex), then prints them
 *
 * It maps the GPU's register BAR through sysfs (/sys/bus/pci/devices/0000:00:02.0/resource0;
 * root only), as any program with that right could.  A driver never aims a plane outside its
 * graphics memory; this one can, and the hypervisor must refuse to scan such a surface out
 * (the tile shows "no signal"), read nothing outside the guest's memory and write nothing.
 * Static, no library: built like i915-colorblt (mk/linux-i915.mk). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "drivers/igpu/gen9_display.h"

#define BAR0      "/sys/bus/pci/devices/0000:00:02.0/resource0"
#define MAP_BYTES (GEN9_DISPLAY_END) /* the display engine's registers are below */

int main(int argc, char **argv)
{
    char *end = NULL;
    unsigned long surf = argc == 2 ? strtoul(argv[1], &end, 16) : 0;
    if (argc > 2 || (argc == 2 && (*end || surf > 0xFFFFFFFFul))) {
        fprintf(stderr, "usage: i915-plane [surface-hex]\n");
        return 2;
    }
    int fd = open(BAR0, O_RDWR | O_SYNC);
    if (fd < 0) {
        perror(BAR0);
        return 1;
    }
    volatile uint32_t *r = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (r == MAP_FAILED) {
        perror("mmap " BAR0);
        return 1;
    }
    if (argc == 2)
        r[GEN9_PLANE_SURF(1) / 4] = (uint32_t)surf;
    printf("PLANE_SURF %#x SURFLIVE %#x PLANE_CTL %#x\n", r[GEN9_PLANE_SURF(1) / 4],
           r[GEN9_PLANE_SURFLIVE(1) / 4], r[GEN9_PLANE_CTL(1) / 4]);
    return 0;
}
