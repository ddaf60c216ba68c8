"""Thirty-two rendering guests start together under Bochs: the 1 GiB appliance with the
32-guest wall of make bench-system (signage, dashboard and idle images in turn, weights
100/150/200, 16 MiB of RAM and 32 + 128 MiB of graphics memory each, 8x4 tiles of 128x192, the
balloon controller on).  Every guest's first frame arrives (the hypervisor's `first ms` for all 32, none of them
gave up and exited), and after 90 s every tile is live: it shows its guest's picture on the
wall, the signage and dashboard guests keep completing frames, and the idle guests' frames are
exactly the picture they drew."""
import os
import re
import statistics
import sys
import time

from harness import Session, StepFailed, config_iso
from test_kiosk import grab

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import kiosk_configs  # noqa: E402

RUN_S = 90
LIVE_S = 10             # the interval over which rendering guests must complete frames
# `vgpu`: id name low-MiB slots submitted completed rejected resets ggtt-ref gpu-ms first-ms
VGPU_ROW = re.compile(r"^\s*(\d+) (\S+)\s+\d+\s+\d+\s+(\d+)\s+(\d+)\s+\d+\s+(\d+)\s+\d+\s+\d+\s+(\d+|-)\s*$", re.M)
SIGNAGE_BG = 0x002060
IDLE_POINTS = ((0.25, 0.25, 0x203040), (0.75, 0.25, 0xC03030), (0.25, 0.75, 0x30C030), (0.75, 0.75, 0x3030C0),
               (1, 1, 0xFFFFFF))


def vgpu_rows(s):
    out = s.command("vgpu", timeout=300)
    rows = {m.group(2): {"id": int(m.group(1)), "submitted": int(m.group(3)), "completed": int(m.group(4)),
                         "resets": int(m.group(5)), "first_ms": None if m.group(6) == "-" else int(m.group(6))}
            for m in VGPU_ROW.finditer(out)}
    return out, rows


def first_frames(rows, names):
    """min, median, max of the guests' first frames (ms after their start)."""
    ms = [rows[n]["first_ms"] for n in names]
    return min(ms), statistics.median(ms), max(ms)


def run(r, iso):
    wall = kiosk_configs.render32()
    names = kiosk_configs.names(wall)
    work = os.path.join(ROOT, "build", "e2e", "bochs-wall32")
    os.makedirs(work, exist_ok=True)
    dts = os.path.join(work, "wall32.dts")
    with open(dts, "w") as f:
        f.write(kiosk_configs.dts(wall, "tests/e2e/test_wall32.py: 32 rendering guests start together"))
    t0 = time.monotonic()
    s = Session("bochs", config_iso("wall32", dts), "bochs-wall32", megs=1024, boot_timeout=300)
    try:
        s.wait_prompt(600)

        def every_first_frame():
            for nm in names:
                s.expect(rf"display: {nm}: \d+x\d+ picture on tile", 600)
            out, rows = vgpu_rows(s)
            missing = [n for n in names if n not in rows or rows[n]["first_ms"] is None]
            assert not missing, f"no first frame for {missing}:\n{out}"
            vms = s.command("vms", timeout=300)
            stopped = re.findall(r"^\s*\d+ (\S+)\s+(exited|crashed|failed|stopped)", vms, re.M)
            assert not stopped, f"guests that did not keep running: {stopped}\n{vms}"
            lo, med, hi = first_frames(rows, names)
            print(f"     first frames of 32 guests: min {lo} ms, median {med:.0f} ms, max {hi} ms after their start "
                  f"(pictures {time.monotonic() - t0:.0f} s after Bochs started)")
        if not r.check("wall32: all 32 rendering guests start and every first frame arrives", every_first_frame):
            return

        s.idle(RUN_S)

        def every_tile_live():
            _, before = vgpu_rows(s)
            shot = grab(s, "", timeout=600)
            s.idle(max(0.0, LIVE_S))
            out, after = vgpu_rows(s)
            vms = s.command("vms", timeout=300)
            bad = []
            cols, rows_n = kiosk_configs.grid(len(wall))
            tw, th = kiosk_configs.WIDTH // cols, kiosk_configs.HEIGHT // rows_n
            for i, (kind, _) in enumerate(wall):
                nm = names[i]
                tile = ((i % cols) * tw, (i // cols) * th, tw, th)
                if not re.search(rf"^\s*{i} {nm}\s+running", vms, re.M):
                    bad.append(f"{nm} is not running")
                if shot.is_nosignal(tile):
                    bad.append(f"{nm}'s tile shows no signal")
                    continue
                if after[nm]["resets"]:
                    bad.append(f"{nm}'s vGPU was reset {after[nm]['resets']} times")
                if kind == "idle":
                    for fx, fy, colour in IDLE_POINTS:
                        x, y = int(fx if fx >= 1 else fx * tw), int(fy if fy >= 1 else fy * th)
                        got = shot.pixel(tile[0] + x, tile[1] + y)
                        if got != colour:
                            bad.append(f"{nm} on the wall at ({x},{y}): {got:06x}, want {colour:06x}")
                    continue
                done = after[nm]["completed"] - before[nm]["completed"]
                if done <= 0:
                    bad.append(f"{nm} completed no frame in {LIVE_S} s ({after[nm]['completed']} in all)")
                if kind == "signage" and shot.fraction(tile, SIGNAGE_BG) < 0.4:
                    bad.append(f"{nm}'s tile is not its dark blue ({shot.fraction(tile, SIGNAGE_BG):.2f})")
                if kind == "dashboard" and shot.dominant(tile)[0] == 0:
                    bad.append(f"{nm}'s tile is black")
            assert not bad, "\n".join(bad) + "\n" + out
            counts = sorted(after[n]["completed"] for n, (k, _) in zip(names, wall) if k != "idle")
            print(f"     after {RUN_S} s: every tile shows its guest's picture; signage and dashboard guests "
                  f"completed {counts[0]}..{counts[-1]} workloads each")
        r.check(f"wall32: after {RUN_S} s every tile is live (its picture on the wall, frames completing)",
                every_tile_live)
    except StepFailed as e:
        r.check("wall32: 32 rendering guests", lambda e=e: (_ for _ in ()).throw(e))
    finally:
        s.close()
        print(f"     wall32 scenario: {time.monotonic() - t0:.0f} s under Bochs")
