"""Re-placement end to end under Bochs: a wall of 16 kiosk guests (signage,
dashboard, heavy, and idle guests that redraw their fixed frame every 200 ms), 32 + 128 MiB of
graphics memory each, so their low windows overlap.  The hypervisor moves the busy ones apart
and sizes their low windows to what they use; a moved guest must keep drawing the right
picture: the screenshot CRC of its framebuffer equals the CRC it computed of the frame it
means to draw, before and after it moved, and everyone else keeps rendering without a
failure."""
import os
import re
import sys
import time

from harness import Session, StepFailed, config_iso
from test_guests import console
from test_kiosk import grab, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import kiosk_configs  # noqa: E402

KINDS = ("signage", "dashboard", "heavy", "redraw")
COLOURS = ((1, 1, 0xFFFFFF), (0.25, 0.25, 0x203040), (0.75, 0.25, 0xC03030), (0.25, 0.75, 0x30C030),
           (0.75, 0.75, 0x3030C0))


def told_low(text):
    """The low windows an idle guest was given, as it printed them: at start, then at each move."""
    found = re.findall(r"idle: (?:vgpu ready tile \d+x\d+|re-placed \(\d+\):) low (0x[0-9a-f]+)\+(0x[0-9a-f]+)",
                       text)
    assert found, text[-600:]
    return [(int(b, 16), int(n, 16)) for b, n in found]


def run(r, iso):
    wall = kiosk_configs.mix(16, KINDS)
    names = kiosk_configs.names(wall)
    redraws = [i for i, (kind, _) in enumerate(wall) if kind == "redraw"]
    work = os.path.join(ROOT, "build", "e2e", "bochs-move16")
    os.makedirs(work, exist_ok=True)
    dts = os.path.join(work, "move16.dts")
    with open(dts, "w") as f:
        f.write(kiosk_configs.dts(wall, "tests/e2e/test_move.py: 16 guests, re-placement"))
    s = Session("bochs", config_iso("move16", dts), "bochs-move16", megs=1024, boot_timeout=180)
    try:
        s.wait_prompt(300)
        for nm in names:
            s.expect(rf"display: {nm}: \d+x\d+ picture on tile", 300)
        texts = {}

        def moved():
            def any_moved():
                for i in redraws:
                    texts[i] = console(s, i, settle=0.5)
                return [i for i in redraws if "re-placed" in texts[i]]
            ids = wait_for(any_moved, 300, "a redrawing guest to be re-placed", poll=10)
            out = s.command("sched", timeout=120)
            m = re.search(r"(\d+) moves of (\d+) asked", out)
            assert m and int(m.group(1)) > 0, out
            print(f"     re-placed: {', '.join(names[i] for i in ids)}; {m.group(0)}")
        r.check("move: the hypervisor re-places busy guests that follow moves", moved)

        def crc_after_move():
            checked = shrunk = 0
            for i in redraws:
                text = console(s, i, settle=0.5)
                if "re-placed" not in text:
                    continue
                want = int(re.search(r"idle: frame crc (0x[0-9a-f]{8})", text).group(1), 16)
                counts = [(int(a), int(b)) for a, b in re.findall(r"idle: redrawn (\d+) times, (\d+) differed", text)]
                got = grab(s, f"{names[i]} crc")
                assert got.crc == want, f"{names[i]}: screenshot crc {got.crc:08x} != its frame {want:08x}"
                info = s.command(f"vgpu {names[i]}")
                m = re.search(r"low (0x[0-9a-f]+)\+(\d+)M", info)
                held = (int(m.group(1), 16), int(m.group(2)) << 20)
                told = told_low(text)
                if told[-1] != held:                    # it moved again since its console was read
                    told = told_low(console(s, i, settle=0.5))
                assert told[-1] == held, (f"{names[i]}: the vGPU holds low {held[0]:#x}+{held[1] >> 20}M, "
                                          f"the guest was told {told[-1][0]:#x}+{told[-1][1] >> 20}M:\n{info}")
                low = held[1] >> 20
                # A move may carry only the high range; one that moved the low window also sizes it
                # to what the guest uses.
                if any(t != told[0] for t in told[1:]):
                    assert low < 32, f"{names[i]} still holds a 32 MiB window after its low moved:\n{info}"
                    shrunk += 1
                s.idle(6)
                later = console(s, i, settle=0.5)
                counts2 = [(int(a), int(b)) for a, b in re.findall(r"idle: redrawn (\d+) times, (\d+) differed", later)]
                assert counts2 and counts2[-1][1] == 0 and "differs" not in later, later[-600:]
                assert not counts or counts2[-1][0] > counts[-1][0], f"{names[i]} stopped redrawing: {counts2[-1:]}"
                got2 = grab(s, f"{names[i]} crc")
                assert got2.crc == want, f"{names[i]}: later screenshot crc {got2.crc:08x} != {want:08x}"
                checked += 1
                print(f"     {names[i]}: crc {want:08x} after its move, 6 s apart, {counts2[-1][0]} redraws, "
                      f"window {low} MiB")
            assert checked, "no redrawing guest was re-placed"
            assert shrunk, "no re-placed guest's low window moved and shrank"
        r.check("move: a moved guest keeps drawing the right picture (screenshot CRC = its own CRC; a smaller "
                "window)", crc_after_move)

        def wall_tiles():
            shot = grab(s, "")
            cols, rows = kiosk_configs.grid(len(wall))
            tw, th = kiosk_configs.WIDTH // cols, kiosk_configs.HEIGHT // rows
            for i in redraws:
                x0, y0 = (i % cols) * tw, (i // cols) * th
                for fx, fy, colour in COLOURS:
                    x = int(fx if fx >= 1 else fx * tw)
                    y = int(fy if fy >= 1 else fy * th)
                    got = shot.pixel(x0 + x, y0 + y)
                    assert got == colour, f"{names[i]} on the wall at ({x},{y}): {got:06x}, want {colour:06x}"
        r.check("move: the wall shows the moved guests' frames on their tiles", wall_tiles)

        def others_keep_rendering():
            bad, before = [], {}
            for i, (kind, _) in enumerate(wall):
                if kind == "redraw":
                    continue
                t1 = console(s, i, settle=0.3)
                # A number counts once the space after it came: the console may be read while a
                # status line is still being printed ("frames 5" of "frames 512 fps ...").
                n1 = [int(x) for x in re.findall(rf"{kind}: frames (\d+) ", t1)]
                before[i] = n1[-1] if n1 else 0
                fails = [int(x) for x in re.findall(r"failures (\d+)", t1)]
                if "check FAILED" in t1 or "failed:" in t1 or (fails and fails[-1]):
                    bad.append(f"{names[i]}: {t1[-300:]}")
                if not n1:
                    bad.append(f"{names[i]} printed no status")
            s.idle(8)
            for i, (kind, _) in enumerate(wall):
                if kind in ("redraw", "dashboard"):     # a dashboard may be in its pause
                    continue
                n2 = [int(x) for x in re.findall(rf"{kind}: frames (\d+) ", console(s, i, settle=0.3))]
                if not n2 or n2[-1] <= before[i]:
                    bad.append(f"{names[i]} stopped rendering: {before[i]} -> {n2[-1:]}")
            assert not bad, "\n".join(bad)
            assert "running" in s.command("vms") and "crashed" not in s.command("vms")
        r.check("move: every other guest keeps rendering, without a failure", others_keep_rendering)
    except StepFailed as e:
        r.check("move: 16-guest re-placement scenario", lambda e=e: (_ for _ in ()).throw(e))
    finally:
        s.close()
