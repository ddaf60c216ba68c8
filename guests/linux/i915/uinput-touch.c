/* uinput-touch: a virtual touchscreen for the i915 guest's Wayland kiosk, made with the kernel's
 * uinput (Documentation/input/uinput.rst), kept for as long as this program runs.
 *
 *   uinput-touch WIDTH HEIGHT      creates it, prints "uinput-touch: /sys/... (WxH)", then waits
 *                                  (SIGTERM removes the device)
 *
 * Why a kiosk needs one: Weston 10's kiosk shell puts a client's window on the screen only when
 * it activates it for a seat (kiosk-shell.c, desktop_surface_committed), and Weston makes a seat
 * only for an input device libinput accepts.  An appliance has its touchscreen; the guest has
 * no input device at all, so without this Weston shows its background and never the client.
 * The device is what a single-touch panel of the monitor's size reports (multi-touch type B
 * axes and BTN_TOUCH, INPUT_PROP_DIRECT): udev's input_id tags it ID_INPUT_TOUCHSCREEN and
 * libinput takes it as a touchscreen, so the seat has touch and no pointer (no cursor) and no
 * keyboard (no keymap to compile).  Nothing is ever written to it.
 * Static, no library but libc: built like i915-plane (mk/linux-i915.mk). */
#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define TOUCH_SLOTS 1

static void die(const char *what)
{
    fprintf(stderr, "uinput-touch: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void set(int fd, unsigned long req, int value, const char *what)
{
    if (ioctl(fd, req, value) < 0)
        die(what);
}

static void axis(int fd, int code, int max)
{
    struct uinput_abs_setup a = { .code = (unsigned short)code, .absinfo = { .maximum = max } };
    set(fd, UI_SET_ABSBIT, code, "UI_SET_ABSBIT");
    if (ioctl(fd, UI_ABS_SETUP, &a) < 0)
        die("UI_ABS_SETUP");
}

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

int main(int argc, char **argv)
{
    long w = argc == 3 ? strtol(argv[1], NULL, 10) : 0,
         h = argc == 3 ? strtol(argv[2], NULL, 10) : 0;
    if (w <= 0 || h <= 0 || w > 16384 || h > 16384) {
        fprintf(stderr, "usage: uinput-touch WIDTH HEIGHT (the monitor's mode, in pixels)\n");
        return 2;
    }
    int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK);
    if (fd < 0)
        die("/dev/uinput (is uinput.ko loaded?)");
    set(fd, UI_SET_EVBIT, EV_KEY, "UI_SET_EVBIT EV_KEY");
    set(fd, UI_SET_KEYBIT, BTN_TOUCH, "UI_SET_KEYBIT BTN_TOUCH");
    set(fd, UI_SET_EVBIT, EV_ABS, "UI_SET_EVBIT EV_ABS");
    axis(fd, ABS_X, (int)w - 1);
    axis(fd, ABS_Y, (int)h - 1);
    axis(fd, ABS_MT_SLOT, TOUCH_SLOTS - 1);
    axis(fd, ABS_MT_POSITION_X, (int)w - 1);
    axis(fd, ABS_MT_POSITION_Y, (int)h - 1);
    axis(fd, ABS_MT_TRACKING_ID, 65535);
    set(fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT, "UI_SET_PROPBIT INPUT_PROP_DIRECT");

    struct uinput_setup us = { .id = { .bustype = BUS_VIRTUAL } };
    snprintf(us.name, sizeof us.name, "Tessera virtual touchscreen");
    if (ioctl(fd, UI_DEV_SETUP, &us) < 0)
        die("UI_DEV_SETUP");
    if (ioctl(fd, UI_DEV_CREATE) < 0)
        die("UI_DEV_CREATE");
    char name[64] = "?";
    if (ioctl(fd, UI_GET_SYSNAME(sizeof name), name) < 0)
        snprintf(name, sizeof name, "?");
    printf("uinput-touch: /sys/devices/virtual/input/%s (%ldx%ld)\n", name, w, h);
    fflush(stdout);

    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    while (!stop)
        pause();
    ioctl(fd, UI_DEV_DESTROY);
    close(fd);
    return 0;
}
