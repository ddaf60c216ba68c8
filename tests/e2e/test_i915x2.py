"""Two Linux i915 guests side by side (configs/kiosk-i915x2.dts), each with its own virtual DP
monitor, tile and picture (docs/vgpu-i915.md "Display"), beside two kiosk guests, under Bochs:
both guests' i915 bind and find DP-1 connected with fbcon on i915drmfb; each tile is its own
guest's splash pixel for pixel; while linux1 runs Weston with an animated client, linux1's tile
changes and linux2's stays its splash, and each vGPU's flips and vblanks are its own; the kiosk
guests keep rendering.

Two Debian kernels loading i915 at once under Bochs take about twice test_i915's boot, so this
scenario runs only when asked for: `tests/e2e/run build/tessera.iso test_i915x2`, or with
TESSERA_E2E_I915X2=1 in `make e2e`; otherwise it says so and counts nothing."""
import os
import re
import sys
import time

import i915_display
from harness import Session, StepFailed, config_iso
from test_i915 import INITRD, KERNEL, ROOT
from test_linux import SHELL_PROMPT, LinuxConsole

CONFIG = os.path.join(ROOT, "configs", "kiosk-i915x2.dts")
NAME = "test_i915x2"
GUESTS = ("linux1", "linux2")
KIOSK_TILES = {"signage": (512, 0, 512, 384), "dashboard": (0, 384, 512, 384)}


class Console(LinuxConsole):
    """LinuxConsole for a guest of another name."""

    def __init__(self, s, vm):
        self.s = s
        self.start = len(s.raw)
        s.send(f"console {vm} time\r")
        s.expect(rf"\[console of guest \d+ \({vm}\), \w+; Ctrl-\] returns to the shell\]\n", 20, self.start)
        self.live = len(s.raw)


def wanted():
    return os.environ.get("TESSERA_E2E_I915X2") == "1" or NAME in sys.argv[2:]


def run(r, iso):
    if not wanted():
        print(f"skip {NAME}: two i915 guests under Bochs (about twice test_i915's boot); run it with "
              f"`tests/e2e/run build/tessera.iso {NAME}` or TESSERA_E2E_I915X2=1", flush=True)
        return
    for path in (KERNEL, INITRD, i915_display.SPLASH):
        if not os.path.exists(path):
            r.fail("i915x2: scenario", f"{path} is missing: `make linux-i915` builds the i915 guest")
            return
    iso = config_iso("kiosk-i915x2", CONFIG, [(KERNEL, "vmlinuz", True), (INITRD, "initramfs-i915", True)])
    s = Session("bochs", iso, "bochs-i915x2", megs=1024, boot_timeout=180)
    size, crc = i915_display.splash_crc()
    t0 = time.monotonic()
    try:
        s.wait_prompt(180)
        before = completed_kiosks(s)
        banners = {}

        def both_bind():
            for vm in GUESTS:
                con = Console(s, vm)
                m = con.wait(r"tessera-i915: ([^\n]*)\n", 3600)
                banners[vm] = m.group(1)
                s.expect(SHELL_PROMPT, 300, m.end())
                con.close()
                print(f"     {vm}: {banners[vm]}")
                assert "display: DP-1 connected 512x384, fb0 i915drmfb, picture 512x384" in banners[vm], banners[vm]
            print(f"     {time.monotonic() - t0:.0f} s wall clock under Bochs to both banners")
        if not r.check("i915x2: both guests' i915 bind the vGPU and find DP-1 connected, fbcon on i915drmfb",
                       both_bind):
            return

        def own_pictures():
            for vm in GUESTS:
                got = i915_display.guest_crc(s, vm)
                assert got == (size[0], size[1], crc), f"{vm}: {got}, splash {crc:08x}"
        r.check("i915x2: each tile is its own guest's splash, pixel for pixel", own_pictures)

        def own_display():
            con = Console(s, "linux1")
            out = con.run("display-kiosk weston", 900)
            assert "running" in out, out
            con.run("sleep 20", 300)
            con.close()
            d1, d2 = vgpu_counts(s, "linux1"), vgpu_counts(s, "linux2")
            a1, a2 = i915_display.guest_crc(s, "linux1"), i915_display.guest_crc(s, "linux2")
            s.idle(10)
            b1, b2 = i915_display.guest_crc(s, "linux1"), i915_display.guest_crc(s, "linux2")
            e1, e2 = vgpu_counts(s, "linux1"), vgpu_counts(s, "linux2")
            print(f"     linux1 (Weston): crc {a1[2]:08x} -> {b1[2]:08x}, flips {d1['flips']} -> {e1['flips']}; "
                  f"linux2 (fbcon): crc {a2[2]:08x} -> {b2[2]:08x}, flips {d2['flips']} -> {e2['flips']}")
            assert a1[2] != b1[2], "linux1's tile did not change under Weston"
            assert a2 == b2 == (size[0], size[1], crc), f"linux2's tile changed: {a2} {b2}"
            assert e1["flips"] > d1["flips"] and e2["flips"] == d2["flips"], (d1, e1, d2, e2)
            con = Console(s, "linux1")
            con.run("display-kiosk stop", 300)
            con.close()
        r.check("i915x2: Weston on linux1 animates its tile only; linux2's picture and flips are untouched",
                own_display)

        def kiosks():
            after = completed_kiosks(s)
            slow = [k for k in KIOSK_TILES if after[k] <= before[k]]
            assert not slow, f"{slow} completed no GPU work: {before} -> {after}"
        r.check("i915x2: the kiosk guests keep completing GPU work", kiosks)
        print(f"     i915x2: {time.monotonic() - t0:.0f} s wall clock under Bochs")
    except StepFailed as e:
        r.fail("i915x2: scenario", str(e))
    finally:
        s.close()


def completed_kiosks(s):
    out = s.command("vgpu")
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"^\s*\d+ (\S+)\s+\d+\s+\d+\s+\d+\s+(\d+)", out, re.M)}


def vgpu_counts(s, vm):
    out = s.command(f"vgpu {vm}")
    m = re.search(r"vblanks: frames (\d+), vblank events (\d+), flips (\d+)", out)
    assert m, out
    return {"frames": int(m.group(1)), "events": int(m.group(2)), "flips": int(m.group(3))}
