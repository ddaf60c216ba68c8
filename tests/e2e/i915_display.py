"""The i915 guest's display (docs/vgpu-i915.md "Display"), checked inside test_i915's boot of
configs/kiosk-i915.dts (`vgpu-display = "dp"`, 30 Hz) with Debian's own programs, and judged
from the tile: fbcon's /dev/fb0 pixel-exact on the tile, vbltest's rate, modetest's connector,
test pattern, page flips and a mode change, Weston and cage each animating a Wayland client, the
virtual monitor hot-plugged, a hostile plane setting showing "no signal" on that tile only, and
the guest's log clean of display warnings.  Benchmarks are printed, not asserted: the exits a
flip costs and the exits per second and the hypervisor's CPU share with cage animating.

The checks share one console (LinuxConsole) and leave fbcon with the splash on the display for
the checks after them."""
import os
import re
import time

import screenshot
from harness import StepFailed
from test_linux import LinuxConsole

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPLASH = os.path.join(ROOT, "build", "image", "linux", "splash.ppm")
HZ = 30                         # configs/kiosk-i915.dts display-hz
MODE = (512, 384)               # the monitor's preferred mode: the tile's size
TILES = {"linux": (0, 0, 512, 384), "signage": (512, 0, 512, 384), "dashboard": (0, 384, 512, 384),
         "idle": (512, 384, 512, 384)}
# What the guest's log must not say after any display step (drm, i915 and the kernel).
BAD_LOG = re.compile(r"WARNING|(?i:flip_done timed out|vblank wait timed out|pipe state doesn't match|"
                     r"mismatch in|not locked|timeout waiting|timed out waiting|Failed to disable SAGV|"
                     r"is not zero|GPU HANG|Call Trace|\*ERROR\*|not done \(status)")


def splash_crc():
    with open(SPLASH, "rb") as f:
        ppm = f.read()
    m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+255\s", ppm)
    return (int(m.group(1)), int(m.group(2))), screenshot.crc32_rgb(ppm[m.end():])


def guest_crc(s, vm="linux"):
    """`screenshot <vm> crc`: (width, height, crc), or None when it has no picture."""
    out = s.command(f"screenshot {vm} crc", timeout=120)
    lines = screenshot.crc_lines(out)
    return (lines[0].width, lines[0].height, lines[0].crc) if lines else None


def wall(s):
    start = len(s.raw)
    s.send("screenshot\r")
    s.expect(r"TSHOT (END [0-9a-f]{8}|ABORT[^\n]*)\n", 600, start)
    s.wait_prompt(60)
    return screenshot.decode(s.raw[start:], subject="wall")


def exits(s, vm="linux"):
    """The guest's VM exits so far (`vms`)."""
    out = s.command("vms")
    m = re.search(rf"^\s*\d+ {vm}\s+\S+\s+\d+M\s+(\d+)", out, re.M)
    assert m, out
    return int(m.group(1))


def cpu_ns(s):
    """`stats`' ns line: wall, guests, rendering, copying, composing."""
    out = s.command("stats")
    m = re.search(r"ns: wall (\d+) guests (\d+) rendering (\d+) copying (\d+) composing (\d+)", out)
    assert m, out
    return [int(x) for x in m.groups()]


def vgpu_display(s):
    out = s.command("vgpu linux")
    lines = [l.strip() for l in out.splitlines() if l.strip().startswith(("monitor:", "plane 1:", "vblanks:"))]
    counts = {}
    m = re.search(r"vblanks: frames (\d+), vblank events (\d+), flips (\d+) \(latched (\d+), async (\d+)\), "
                  r"aux (\d+), hotplugs (\d+), refusals (\d+)", out)
    if m:
        counts = dict(zip(("frames", "events", "flips", "latched", "async", "aux", "hotplugs", "refusals"),
                          map(int, m.groups())))
    return lines, counts, out


def run(r, s, banner, timing):
    """The display checks; `banner` is i915-init's line, `timing` gets the wall times."""
    con = [None]

    def console():
        if not con[0]:
            con[0] = LinuxConsole(s)
        return con[0]

    def detach():
        if con[0]:
            con[0].close()
            con[0] = None

    def sh(line, timeout=300):
        return console().run(line, timeout)

    def clean_log(step):
        out = sh("dmesg | grep -iE 'warn|error|time|mismatch|lock|zero|hang|trace'", 300)
        bad = [l for l in out.splitlines() if BAD_LOG.search(l) and "fastset mismatch" not in l]
        assert not bad, f"after {step} the guest's log says:\n" + "\n".join(bad[-12:])

    t0 = time.monotonic()
    size, crc = splash_crc()

    def connected():
        assert re.search(r"display: DP-1 connected 512x384, fb0 i915drmfb, picture 512x384 on /dev/fb0",
                         banner), banner
        out = sh("dmesg | grep -E 'DP-1|fb0|i915drmfb|PCH|VBT' | tail -n 12")
        print("\n".join("     " + l for l in out.strip().splitlines()[-8:]))
        assert re.search(r"fb0: i915drmfb frame buffer device", out), out
        out = sh("cat /sys/class/drm/card0-DP-1/modes")
        assert out.split()[:1] == ["512x384"], out
        detach()
        lines, counts, out = vgpu_display(s)
        print("\n".join("     " + l for l in lines))
        assert "monitor: DP-1 connected, 512x384 at 30 Hz preferred; pipe A on at 30.000 Hz" in out, out
        assert "plane 1: 512x384 at 0,0 of 512x384, XRGB8888 linear" in out, out
    if not r.check("i915 display: one DP-1 connected at 512x384 (the EDID's preferred), fb0 is i915drmfb; "
                   "`vgpu linux` shows the monitor, pipe A on at 30 Hz and plane 1", connected):
        detach()
        return

    def fbcon_exact():
        got = guest_crc(s)
        print(f"     screenshot linux crc {got[2]:08x} {got[0]}x{got[1]}; the splash {crc:08x}")
        assert got == (size[0], size[1], crc), f"tile {got}, splash {size} {crc:08x}"
    r.check("i915 display: fbcon's /dev/fb0, drawn by the guest (fbpicture), is on the tile pixel for pixel",
            fbcon_exact)

    def hostile():
        out = sh("i915-plane")
        m = re.search(r"PLANE_SURF (0x[0-9a-f]+) SURFLIVE 0x[0-9a-f]+ PLANE_CTL (0x[0-9a-f]+)", out)
        assert m and int(m.group(2), 16) & (1 << 31), f"plane 1 is not on: {out}"
        good = m.group(1)
        # Far outside its graphics memory (another guest's window, the host area: wherever).
        out = sh("i915-plane fffff000; sleep 3")
        detach()
        shot = wall(s)
        screenshot.write_png(shot, os.path.join(ROOT, "build", "e2e", "bochs-i915", "hostile.png"))
        assert shot.is_nosignal(TILES["linux"]), "the Linux tile does not show no signal"
        others = [k for k in ("signage", "dashboard") if shot.is_nosignal(TILES[k])]
        assert not others, f"{others} show no signal too"
        lines, counts, out = vgpu_display(s)
        print("     " + " / ".join(lines[1:3]))
        assert "refused: surface outside its graphics memory" in out, out
        log = s.command("log", keep_log=True)
        assert "no signal (bad surface: surface outside its graphics memory)" in log, log[-2000:]
        sh(f"i915-plane {good[2:]}; sleep 3")
        detach()
        got = guest_crc(s)
        assert got == (size[0], size[1], crc), f"after the hostile plane: {got}"
    r.check("i915 display: a hostile plane (PLANE_SURF outside its memory) shows \"no signal\" on its tile only, "
            "and the picture comes back", hostile)

    def vbltest():
        out = sh("timeout 12 vbltest -M i915 2>&1 | grep freq", 300)
        rates = [float(x) for x in re.findall(r"freq:\s*([\d.]+)\s*Hz", out)]
        print(f"     vbltest: {', '.join(f'{x:.2f} Hz' for x in rates)}")
        assert rates, out
        assert abs(rates[-1] - HZ) <= HZ / 10, f"{rates[-1]} Hz, configured {HZ}"
    r.check(f"i915 display: vbltest reports {HZ} Hz within 10 % of guest time", vbltest)

    conn = {}

    def modetest_connector():
        out = sh("modetest -M i915 -c | grep -E 'connected|^  #'", 300)
        m = re.search(r"^(\d+)\s+(\d+)\s+connected\s+DP-1\s", out, re.M)
        assert m, out
        conn["id"] = m.group(1)
        assert re.search(r"#0 512x384 30\.00 ", out) and re.search(r"#1 640x480 30\.00 ", out), out
        print(f"     modetest: connector {conn['id']} DP-1 connected, 512x384 and 640x480 at 30 Hz")
    if not r.check("i915 display: modetest -c lists one connector, DP-1, connected, with the EDID's modes",
                   modetest_connector):
        detach()
        return

    def test_pattern():
        sh(f"sleep 45 | modetest -M i915 -s {conn['id']}:512x384 >/tmp/mt.log 2>&1 &")
        sh("sleep 12")
        detach()
        shot = wall(s)
        screenshot.write_png(shot, os.path.join(ROOT, "build", "e2e", "bochs-i915", "modetest.png"))
        x, y, w, h = TILES["linux"]
        # modetest's default pattern (SMPTE): seven bars across the top two thirds, white first.
        bars = [shot.dominant((x + w * i // 7 + 8, y + 20, w // 7 - 16, h // 3))[0] for i in range(7)]
        print("     modetest -s pattern bars: " + " ".join(f"{c:06x}" for c in bars))
        assert len(set(bars)) >= 6, bars
        assert not shot.is_nosignal(TILES["linux"])
        sh("sleep 40; cat /tmp/mt.log | tail -n 3", 300)
    r.check("i915 display: modetest -s sets 512x384 and its test pattern is on the tile", test_pattern)

    def flips():
        detach()
        e0, l0 = exits(s), vgpu_display(s)[1]
        sh(f"sleep 25 | modetest -M i915 -s {conn['id']}:512x384 -v >/tmp/mtv.log 2>&1 &")
        sh("sleep 22")
        detach()
        e1, l1 = exits(s), vgpu_display(s)[1]
        out = sh("sleep 5; grep freq /tmp/mtv.log | tail -n 2", 300)
        rates = [float(x) for x in re.findall(r"freq:\s*([\d.]+)\s*Hz", out)]
        assert rates, out
        flips_done = l1["flips"] - l0["flips"]
        print(f"     modetest -v: {', '.join(f'{x:.2f}' for x in rates)} Hz page flips (a flip a frame at most: "
              f"the guest's turnaround under Bochs decides); {flips_done} flips, "
              f"{(e1 - e0) / max(flips_done, 1):.0f} exits per flip (with its vblank interrupt)")
        assert flips_done > 0 and rates[-1] <= HZ * 1.1, f"{rates[-1]} Hz"
        assert rates[-1] >= HZ / 2, f"{rates[-1]} Hz: flips complete at most every other frame"
    r.check(f"i915 display: modetest -v flips page after page, one a frame at most ({HZ} Hz; exits per flip "
            f"printed)", flips)

    def mode_change():
        sh(f"sleep 40 | modetest -M i915 -s {conn['id']}:640x480 >/tmp/mt2.log 2>&1 &")
        sh("sleep 15")
        detach()
        lines, _, out = vgpu_display(s)
        got = guest_crc(s)
        print("     " + " / ".join(lines[:2]) + f"; screenshot linux {got[0]}x{got[1]}")
        assert "plane 1: 640x480 at 0,0 of 640x480" in out, out
        assert got[:2] == (640, 480), got
        shot = wall(s)
        assert not shot.is_nosignal(TILES["linux"])
        sh("sleep 30; fbpicture /etc/splash.ppm /dev/fb0", 300)
        detach()
        got = guest_crc(s)
        assert got == (size[0], size[1], crc), f"after modetest: tile {got}, splash {crc:08x}"
    r.check("i915 display: a mode change (modetest 640x480) reaches the tile; afterwards fbcon is back at "
            "512x384 and the splash pixel-exact again", mode_change)

    def animates(kind):
        log = "/tmp/weston.log" if kind == "weston" else "/tmp/cage.log"

        def check():
            try:
                out = sh(f"display-kiosk {kind}", 600)
                assert f"display-kiosk: {kind}" in out and "running" in out, out
                sh("sleep 20", 300)
                detach()
                e0, n0, l0 = exits(s), cpu_ns(s), vgpu_display(s)[1]
                a = guest_crc(s)
                s.idle(10)
                b = guest_crc(s)
                e1, n1, l1 = exits(s), cpu_ns(s), vgpu_display(s)[1]
                secs = (n1[0] - n0[0]) / 1e9
                hv = 1 - (n1[1] - n0[1]) / (n1[0] - n0[0])
                assert a and b and a[:2] == MODE and b[:2] == MODE, (a, b)
                assert a[2] != b[2], f"two screenshots 10 s apart are the same: {a}"
                print(f"     {kind}: tile crc {a[2]:08x} then {b[2]:08x}; over {secs:.1f} s of hypervisor time: "
                      f"{(l1['flips'] - l0['flips']) / secs:.1f} flips/s, {(l1['frames'] - l0['frames']) / secs:.1f} "
                      f"frames/s, {(e1 - e0) / secs:.0f} exits/s of the Linux guest, hypervisor (not guests) "
                      f"{hv:.1%} of the CPU, composing {(n1[4] - n0[4]) / (n1[0] - n0[0]):.1%}")
                if kind == "weston":
                    # Its seat: the virtual touchscreen display-kiosk made, as libinput took it.
                    out = sh(f"grep -E 'DP-1|virtual touch' {log} | head -n 5", 300)
                    print("\n".join("     " + l for l in out.strip().splitlines()[:5]))
                    assert re.search(r"DP-1", out) and re.search(r"connected", out), out
                    assert "Touchscreen - Tessera virtual touchscreen" in out, out
            finally:
                try:
                    # One command a line: the guest's shell takes 70 columns (LinuxConsole.run).
                    out = "".join(sh(c, 300) for c in (f"grep -E 'DP-1|rror|ailed' {log} | tail -n 6",
                                                       f"tail -n 4 {log} /tmp/client.log", "display-kiosk stop"))
                    print("\n".join("     " + l for l in out.strip().splitlines()[-20:]))
                    sh("fbpicture /etc/splash.ppm /dev/fb0", 300)
                except StepFailed as e:
                    print(f"     ({kind} could not be stopped: {e})")
            clean_log(kind)
        return check
    r.check("i915 display: Weston 10 (DRM backend, pixman, kiosk shell, a virtual touchscreen for its "
            "seat) with weston-simple-shm animates on the tile", animates("weston"))
    r.check("i915 display: cage (wlroots, pixman) with weston-simple-shm animates on the tile", animates("cage"))

    def preferred():
        """DP-1's status and the preferred mode of the EDID i915 last read (sysfs `edid`: the
        first detailed timing's active size), as i915's hotplug handling left them."""
        status = sh("cat /sys/class/drm/card0-DP-1/status").strip()
        out = sh("od -An -tu1 -j54 -N8 /sys/class/drm/card0-DP-1/edid")
        b = [int(x) for x in out.split() if x.isdigit()]     # (od says why on an empty EDID)
        mode = f"{b[2] | (b[4] >> 4) << 8}x{b[5] | (b[7] >> 4) << 8}" if len(b) == 8 else None
        return status, mode

    def settled(want, seconds=180):
        """What i915's hotplug handler found, without any probe from user space: polled until it
        is `want` (its hotplug work runs when the guest gets to it; under a loaded Bochs that is
        tens of seconds), then the last reading."""
        end = time.monotonic() + seconds
        got = preferred()
        while got != want and time.monotonic() < end:
            sh("sleep 5", 300)
            got = preferred()
        return got

    def hotplug():
        detach()
        out = s.command("monitor linux off", timeout=60)
        assert "monitor linux: DP-1 disconnected; hotplug sent" in out, out
        s.idle(15)
        got = settled(("disconnected", None))
        assert got[0] == "disconnected", got
        detach()
        out = s.command("monitor linux 640x480", timeout=60)
        assert "monitor linux: DP-1 connected, 640x480 at 30 Hz preferred; hotplug sent" in out, out
        s.idle(15)
        got = settled(("connected", "640x480"))
        assert got == ("connected", "640x480"), got
        detach()
        s.command("monitor linux on", timeout=60)
        s.idle(15)
        got = settled(("connected", "512x384"))
        assert got == ("connected", "512x384"), got
        # fbcon lights the display again at its own 512x384.
        sh("sleep 5; fbpicture /etc/splash.ppm /dev/fb0", 300)
        detach()
        lines, counts, _ = vgpu_display(s)
        assert counts["hotplugs"] == 3, counts
        back = guest_crc(s)
        assert back == (size[0], size[1], crc), f"after the hotplugs: {back}"
        print("     hotplugs: off -> disconnected; 640x480 -> connected, its EDID preferring 640x480; "
              "on -> 512x384, fbcon's splash on the tile again")
    r.check("i915 display: the monitor hot-plugged (unplugged, 640x480, back): i915's hotplug handling "
            "follows each time",
            hotplug)

    r.check("i915 display: the guest's log has no display warning, timeout or state mismatch",
            lambda: clean_log("the display checks"))
    detach()
    timing["display"] = time.monotonic() - t0
    print(f"     display checks: {timing['display']:.0f} s wall clock under Bochs")
