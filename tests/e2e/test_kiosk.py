"""The mediated vGPU end to end under Bochs: the kiosk wall, its guests on two CPUs, renders
and a screenshot shows every guest's picture on its tile; GPU shares follow the render weights (and a
change of them); a hostile guest's attacks are rejected or contained while its neighbours' frames
stay untouched; a runaway batch is reset by the watchdog; ballooning grows and shrinks a guest
that keeps rendering correctly."""
import os
import re
import sys
import time

from harness import Session, StepFailed, config_iso
from test_guests import console

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import screenshot  # noqa: E402
CONFIGS = os.path.join(ROOT, "tests", "e2e", "configs")
TILES = {0: (0, 0, 512, 384), 1: (512, 0, 512, 384), 2: (0, 384, 512, 384), 3: (512, 384, 512, 384)}
# id name weight vtime gpu-ms share ideal ratio queue backlog% (ideal and ratio are "-" for a vGPU that
# was not backlogged: docs/operator-guide.md `sched`)
SCHED_ROW = re.compile(r"^\s*(\d+) (\S+)\s+(\d+)\s+(-?\d+)\s+(\d+) (\d+\.\d+)\s+(\d+\.\d+|-)\s+(\d+\.\d+|-)\s+(\d+)"
                       r"\s+(\d+\.\d)%\s*$", re.M)


def sched_table(s):
    out = s.command("sched", timeout=60)
    mmr = float(re.search(r"MMR (\d+\.\d+)", out).group(1))
    rows = {int(m.group(1)): dict(name=m.group(2), weight=int(m.group(3)), gpu_ms=int(m.group(5)),
                                  share=float(m.group(6)),
                                  ideal=None if m.group(7) == "-" else float(m.group(7)),
                                  backlog=float(m.group(10)) / 100)
            for m in SCHED_ROW.finditer(out)}
    return out, mmr, rows


def wait_for(fn, timeout, what, poll=2.0):
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        last = fn()
        if last:
            return last
        time.sleep(poll)
    raise StepFailed(f"timed out waiting for {what}")


def grab(s, args, timeout=240):
    """Runs `screenshot <args>` and returns the decoded screenshot (or CRC line)."""
    start = len(s.raw)
    s.send(f"screenshot {args}\r".replace("  ", " "))
    s.expect(r"TSHOT (END [0-9a-f]{8}|CRC [^\n]*|ABORT[^\n]*)\n", timeout, start)
    s.wait_prompt(30)
    text = s.raw[start:]
    if "crc" in args.split():
        return screenshot.crc_lines(text)[0]
    return screenshot.decode(text)


def boot(config):
    """Boots Bochs with tests/e2e/configs/<config>.dts as the configuration, at the prompt."""
    s = Session("bochs", config_iso(config, os.path.join(CONFIGS, config + ".dts")), "bochs-" + config, megs=1024,
                boot_timeout=180)
    try:
        s.wait_prompt(180)
    except StepFailed:
        s.close()
        raise
    return s


def more_work_done(s, names, timeout=60):
    """Waits until each named guest's vGPU has completed more workloads than it had (`vgpu`)."""
    def done():
        out = s.command("vgpu")
        got = {m.group(1): int(m.group(2)) for m in
               re.finditer(r"^\s*\d+ (\S+)\s+\d+\s+\d+\s+\d+\s+(\d+)", out, re.M)}
        return {n: got.get(n) for n in names}
    before = done()
    assert None not in before.values(), before
    wait_for(lambda: all(n > before[g] for g, n in done().items()), timeout,
             f"{' and '.join(names)} to complete more GPU work", poll=3.0)


def kiosk_wall(r, iso):
    """The shipped kiosk wall (signage, dashboard, heavy, idle) as configs/kiosk-smp.dts places it
    on two CPUs: it names five cores, so the render loop and kiosk2 run on CPU 1, kiosk0, kiosk1
    and kiosk3 on CPU 0 beside the shell."""
    iso = config_iso("kiosk-smp", os.path.join(ROOT, "configs", "kiosk-smp.dts"))
    s = Session("bochs", iso, "bochs-kiosk", megs=1024, boot_timeout=180, cpus=2)
    try:
        s.wait_prompt(180)
        for i in range(4):
            s.expect(rf"display: kiosk{i}: \d+x\d+ picture on tile", 120)

        def placed():
            for guest, want, got in ((1, 2, 0), (2, 3, 1), (3, 4, 0)):
                s.expect(rf"guest {guest} \(kiosk{guest}\): CPU {want} cannot run guests here: it runs on "
                         rf"CPU {got}", 5)
            s.expect(r"cpu 1: runs the render loop and 1 guest", 5)
            out = s.command("cpus")
            assert re.search(r"^\s*0\s+\d+\s+boot\s+guests kiosk0 kiosk1 kiosk3 \(\d+% of its time\), "
                             r"shell; VT-x on$", out, re.M), out
            assert re.search(r"^\s*1\s+\d+\s+running\s+guests kiosk2 \(\d+% of its time\)"
                             r"(, waited \d+ times for its share of the hypervisor \(\d+ ms\))?, render loop; "
                             r"VT-x on$", out, re.M), out
            out = s.command("vcpu kiosk2")
            assert re.search(r"guest 2 \(kiosk2\): running on CPU 1, \d+ exits", out), out
        r.check("kiosk: a five-core configuration on two CPUs is folded, each move logged: the render loop and "
                "kiosk2 run on CPU 1, `cpus` and `vcpu` say so", placed)

        def all_render():
            out = s.command("vgpu")
            done = [int(m.group(1)) for m in re.finditer(r"^\s*\d+ kiosk\d\s+\d+\s+\d+\s+\d+\s+(\d+)", out, re.M)]
            assert len(done) == 4 and all(d > 0 for d in done), f"not every vGPU completed work:\n{out}"
        r.check("kiosk: all four kiosk guests complete GPU work through their vGPUs", all_render)

        def wall_png():
            shot = grab(s, "")
            path = os.path.join(ROOT, "build", "e2e", "bochs-kiosk", "wall.png")
            screenshot.write_png(shot, path)
            assert (shot.width, shot.height) == (1024, 768), shot
            x, y, w, h = TILES[0]
            assert shot.fraction(TILES[0], 0x002060) > 0.4, "signage tile is not its dark blue"
            for i in (1, 2):
                assert not shot.is_nosignal(TILES[i]), f"tile {i} shows no signal"
                assert shot.dominant(TILES[i]) != 0, f"tile {i} is black"
            ix, iy = TILES[3][0], TILES[3][1]
            for (dx, dy), colour in (((100, 100), 0x203040), ((400, 100), 0xC03030), ((100, 300), 0x30C030),
                                     ((400, 300), 0x3030C0), ((1, 1), 0xFFFFFF)):
                got = shot.pixel(ix + dx, iy + dy)
                assert got == colour, f"idle tile at ({dx},{dy}) is {got:06x}, expected {colour:06x}"
            print(f"     wall screenshot: {path}")
        r.check("kiosk: a screenshot of the wall, as PNG, shows each guest's picture on its tile", wall_png)

        def idle_crc():
            # The guest computes the CRC on the CPU after its frame is drawn (seconds under
            # Bochs, and no guest runs while the shell sends a screenshot): wait for the line.
            want = wait_for(lambda: re.search(r"idle: frame crc (0x[0-9a-f]{8})", console(s, 3)), 120,
                            "the idle guest's CRC line")
            got = grab(s, "kiosk3 crc")
            assert got.crc == int(want.group(1), 16), f"screenshot kiosk3 crc {got.crc:08x} != {want.group(1)}"
        r.check("kiosk: `screenshot kiosk3 crc` equals the CRC the idle guest computed of its frame", idle_crc)

        def restart_on_ap():
            start = len(s.raw)
            s.command("vm reset kiosk2", 60)
            s.expect(r"guest 2 \(kiosk2\): started from 'heavy'", 60, start)
            s.expect(r"display: kiosk2: \d+x\d+ picture on tile", 120, start)
            out = s.command("vms")
            assert re.search(r"^\s*2 kiosk2\s+running", out, re.M), out
        r.check("kiosk: kiosk2, restarted from the shell on CPU 0, starts again on CPU 1 and shows its picture",
                restart_on_ap)

        def render_cpu_lost():
            start = len(s.raw)
            out = s.command("cpus fault 1", 30)
            assert "cpus fault: CPU 1 is lost" in out, out
            s.expect(r"render loop: CPU 1 was lost: the boot CPU runs it", 30, start)
            s.expect(r"guest 2 \(kiosk2\): .*its CPU 1 was lost", 30, start)
            out = s.command("cpus")
            assert re.search(r"^\s*0\s+\d+\s+boot\s+guests kiosk0 kiosk1 kiosk3 \(\d+% of its time\), "
                             r"render loop, shell; VT-x on$", out, re.M), out
            more_work_done(s, ("kiosk0", "kiosk1"))
        r.check("kiosk: when the render loop's CPU is lost, the boot CPU takes the render loop over and "
                "signage and dashboard go on rendering", render_cpu_lost)
    finally:
        s.close()


def render_core(r, _iso):
    """The render loop alone on CPU 1 (tests/e2e/configs/render-core.dts), signage and heavy on
    CPU 0: the model runs beside them without the hypervisor lock, and both keep rendering."""
    s = Session("bochs", config_iso("render-core", os.path.join(CONFIGS, "render-core.dts")),
                "bochs-render-core", megs=1024, boot_timeout=180, cpus=2)
    try:
        s.wait_prompt(180)
        for name in ("signage", "heavy"):
            s.expect(rf"display: {name}: \d+x\d+ picture on tile", 120)

        def placed():
            s.expect(r"cpu 1: runs the render loop and 0 guests", 5)
            out = s.command("cpus")
            assert re.search(r"^\s*0\s+\d+\s+boot\s+guests signage heavy \(\d+% of its time\), shell; VT-x on$",
                             out, re.M), out
            assert re.search(r"^\s*1\s+\d+\s+running\s+render loop; VT-x on$", out, re.M), out
            locks = re.findall(r"^\s+hypervisor lock: waited \d+ ms \(\d+%\), held \d+ ms \(\d+%\), longest \d+ us$",
                               out, re.M)
            assert len(locks) == 2, out
        r.check("render core: the render loop runs alone on CPU 1, `cpus` says so with each CPU's use of the "
                "hypervisor lock", placed)

        def both_render():
            more_work_done(s, ("signage", "heavy"))
            # The model runs beside the steps, outside the hypervisor lock: CPU 1 holds the lock
            # for less time than the model has executed (inside the steps it would hold it longer).
            stats = s.command("stats")
            rendering_ms = int(re.search(r"^ns: .* rendering (\d+) ", stats, re.M).group(1)) // 1000000
            cpus = s.command("cpus")
            held_ms = int(re.search(r"running\s+render loop; VT-x on\n\s+hypervisor lock: waited \d+ ms \(\d+%\), "
                                    r"held (\d+) ms", cpus).group(1))
            assert 0 < held_ms < rendering_ms, f"CPU 1 held the lock {held_ms} ms, the model ran {rendering_ms} ms:\n" \
                                               f"{stats}\n{cpus}"
            print(f"     model {rendering_ms} ms on CPU 1, which held the hypervisor lock {held_ms} ms")
        r.check("render core: the model executes on CPU 1 outside the hypervisor lock and both guests' work completes",
                both_render)
    finally:
        s.close()


def fairness(r, _iso):
    s = boot("fair4")
    try:
        time.sleep(15)

        def measure(weights, seconds):
            s.command("sched reset")
            time.sleep(seconds)
            out, mmr, rows = sched_table(s)
            total = sum(weights)
            for i, w in enumerate(weights):
                ideal = w / total
                share = rows[i]["share"]
                assert abs(share - ideal) <= 0.1 * ideal, \
                    f"heavy{i}: share {share:.3f}, ideal {ideal:.3f} (weights {weights}):\n{out}"
                # All four always have work: each is counted, with the weights' ideal.
                assert rows[i]["ideal"] is not None and abs(rows[i]["ideal"] - ideal) <= 0.01, \
                    f"heavy{i}: not backlogged, or ideal {rows[i]['ideal']} != {ideal:.3f}:\n{out}"
            assert mmr >= 0.9, f"MMR {mmr}:\n{out}"
            print(f"     shares {[rows[i]['share'] for i in range(4)]} MMR {mmr} ({seconds} s)")
            print("     " + next(line for line in out.splitlines() if line.startswith("turns")))
            return out

        r.check("fair: four heavy guests at weights 1:2:3:4 get GPU shares within 10% of 1:2:3:4, MMR >= 0.9",
                lambda: measure([1, 2, 3, 4], 40))

        def reweight():
            s.command("weight heavy0 400")
            s.command("weight heavy3 100")
            measure([4, 2, 3, 1], 40)
        r.check("fair: after `weight` changes at run time (4:2:3:1) the shares follow", reweight)
    finally:
        s.close()


def hostile(r, _iso):
    s = boot("hostile-gpu")
    try:
        text = wait_for(lambda: (lambda t: t if "hostile-gpu: done" in t else None)(console(s, 2, settle=2.0)),
                        600, "hostile-gpu to finish its attacks", poll=5.0)
        results = dict(re.findall(
            r"hostile-gpu: ([a-z-]+): (rejected reason \d+|refused|reset|contained.*|NOT CONTAINED.*)", text))

        def attacks_contained():
            for a in ("blit-outside", "store-outside", "lri-forbidden", "ggtt-foreign", "fence-foreign",
                      "batch-loop", "runaway"):
                assert a in results, f"no result for {a}:\n{text}"
                assert not results[a].startswith("NOT"), f"{a}: {results[a]}"
            assert results["runaway"] == "reset", f"runaway: {results['runaway']}"
            assert "done, 0 of" in text, text
            assert "still rendering" in text
        r.check("hostile-gpu: every attack is rejected, refused or reset, and the guest still renders", attacks_contained)

        def cross_guest_contained():
            # The four ways across the guest boundary (guests/hostile-gpu/iso_attacks.c): judged
            # by the attacker (what it read) and by the victim beside it (what reached it).
            for a in ("fence-detile", "gpr-leak", "gpr-plant", "scratch-share"):
                assert a in results, f"no result for {a}:\n{text}"
                assert not results[a].startswith("NOT"), f"{a}: {results[a]}"
            assert results["fence-detile"] == "refused", f"fence-detile: {results['fence-detile']}"
            for a in ("gpr-leak", "gpr-plant", "scratch-share"):
                assert results[a].startswith("contained"), f"{a}: {results[a]}"
            victim = console(s, 3)
            assert "victim: ready" in victim, victim
            assert "POISONED" not in victim, victim
            # a status line written after the attacks ended, with frames and nothing poisoned
            statuses = [(int(n), int(g), int(p)) for n, g, p in
                        re.findall(r"victim: frames (\d+) poisoned gpr (\d+) page (\d+)", victim)]
            assert statuses, f"the victim printed no status:\n{victim}"
            time.sleep(5)
            statuses = [(int(n), int(g), int(p)) for n, g, p in
                        re.findall(r"victim: frames (\d+) poisoned gpr (\d+) page (\d+)", console(s, 3))]
            frames, gpr, page = statuses[-1]
            assert frames > 10 and gpr == 0 and page == 0, f"victim: {statuses[-1]}"
            print(f"     victim: {frames} frames, nothing poisoned; attacker: " +
                  ", ".join(f"{a} {results[a].split(' (')[0]}" for a in ("fence-detile", "gpr-leak", "gpr-plant",
                                                                          "scratch-share")))
        r.check("hostile-gpu: fence de-tiling, GPR leak and planting, the shared scratch page: the attacker "
                "reads nothing foreign and nothing reaches the victim", cross_guest_contained)

        def reasons_shown():
            out = s.command("vgpu hostile")
            for why in ("outside", "register", "loop", "watchdog"):
                assert why in out, f"`vgpu hostile` does not give a reason with '{why}':\n{out}"
            assert re.search(r"resets [1-9]", out), out
            assert re.search(r"ggtt writes \d+ refused [1-9]", out), out
            assert re.search(r"fence writes \d+ refused [1-9]", out), out
            for line in ("GGTT write refused", "refused by the scanner", "fence 0", "reset (watchdog)"):
                assert line in s.raw, f"the log has no '{line}' line"
        r.check("hostile-gpu: `vgpu hostile` and the log give the reasons, with resets and refusals counted",
                reasons_shown)

        def neighbours_untouched():
            text0 = console(s, 0)
            want = int(re.search(r"idle: frame crc (0x[0-9a-f]{8})", text0).group(1), 16)
            assert "differs" not in text0, text0
            got = grab(s, "idle crc")
            assert got.crc == want, f"idle's framebuffer changed: {got.crc:08x} != {want:08x}"
            f1 = [int(x) for x in re.findall(r"signage: frames (\d+) ", console(s, 1))]
            time.sleep(8)
            f2 = [int(x) for x in re.findall(r"signage: frames (\d+) ", console(s, 1))]
            assert f1 and f2 and f2[-1] > f1[-1], f"signage stopped rendering: {f1[-1:]} -> {f2[-1:]}"
            assert "running" in s.command("vms")
        r.check("hostile-gpu: the idle guest's frame is unchanged (screenshot CRC) and signage keeps rendering",
                neighbours_untouched)
    finally:
        s.close()


def balloon(r, _iso):
    s = boot("balloon")
    try:

        def grows():
            t = wait_for(lambda: (lambda c: c if re.search(r"heavy: balloon \+1 granted, slots [3-9]", c) else None)(
                console(s, 0)), 240, "heavy to be granted a slot", poll=5.0)
            out = s.command("balloon")
            assert re.search(r"heavy\s+slots [3-9]", out), out
            assert re.search(r"granted [1-9]", out), out
            return t
        r.check("balloon: heavy asks for more graphics memory and the controller grants it", grows)

        def shrinks():
            out = s.command("balloon heavy -2")
            assert "heavy: balloon -2" in out, out
            before = console(s, 0)
            assert wait_for(lambda: "ranges changed" in console(s, 0)[len(before) - 200:], 120,
                            "heavy to re-place its surfaces")
            n1 = [int(x) for x in re.findall(r"heavy: frames (\d+) ", console(s, 0))]
            time.sleep(15)
            text = console(s, 0)
            n2 = [int(x) for x in re.findall(r"heavy: frames (\d+) ", text)]
            assert n2[-1] > n1[-1], f"heavy stopped rendering after the shrink: {n1[-1:]} -> {n2[-1:]}"
            assert "check FAILED" not in text, text
        r.check("balloon: `balloon heavy -2` shrinks it and it keeps rendering correctly", shrinks)
        print("     " + next(line for line in s.command("balloon").splitlines() if "controller" in line))
    finally:
        s.close()


def run(r, iso):
    for name, scenario in (("kiosk wall", kiosk_wall), ("render core", render_core), ("fairness", fairness),
                           ("hostile gpu", hostile), ("balloon", balloon)):
        try:
            scenario(r, iso)
        except StepFailed as e:
            r.check(f"kiosk: {name} scenario", lambda e=e: (_ for _ in ()).throw(e))
