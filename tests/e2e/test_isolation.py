"""Performance isolation end to end under Bochs: a hog of back-to-back legal 110 ms
workloads beside a guest that always has GPU work (heavy) and a victim drawing small frames, all
of equal weight.  The GPU is shared by weight although the hog's workloads are each many turns
long (it is preempted, not reset), the victim keeps drawing, and the shell keeps answering.
The numbers (the victim's frame rate beside each attack, the shell's answer time) are the
benchmark's: `make bench-isolation`, docs/benchmarks.md."""
import re
import time

from harness import StepFailed
from test_guests import console
from test_kiosk import boot, sched_table, wait_for

RENDER = re.compile(r"preemptions (\d+), drains (\d+) \((\d+) busy\)")
VICTIM = re.compile(r"victim: t (\d+) frames (\d+) failed (\d+)")


def run(r, _iso):
    try:
        s = boot("isolation")
    except StepFailed as e:
        r.fail("isolation: boot", str(e))
        return
    try:
        wait_for(lambda: "hog: long-work t" in console(s, 0), 600, "the hog's attack to run", poll=10.0)

        def shares():
            s.command("sched reset")
            s.idle(30)
            out, _, rows = sched_table(s)
            hog, heavy = rows[0], rows[1]
            assert heavy["share"] >= 0.35, f"heavy got {heavy['share']:.3f} of the GPU beside the hog:\n{out}"
            assert abs(heavy["share"] - hog["share"]) <= 0.2 * max(heavy["share"], hog["share"]), \
                f"equal weights, unequal shares:\n{out}"
            m = RENDER.search(out)
            assert m and int(m.group(1)) > 0, f"the hog was never preempted:\n{out}"
            detail = s.command("vgpu hog")
            assert re.search(r"resets 0 ", detail), f"the hog's legal workloads were reset:\n{detail}"
            print(f"     shares hog {hog['share']:.3f} heavy {heavy['share']:.3f} victim "
                  f"{rows[2]['share']:.3f}; preemptions {m.group(1)}")
        r.check("isolation: beside a hog of 110 ms workloads, an equal-weight guest gets as much of the "
                "GPU as the hog, which is preempted (not reset)", shares)

        def victim_and_shell():
            before = [tuple(map(int, m.groups())) for m in VICTIM.finditer(console(s, 2))]
            for cmd in ("vms", "sched", "vgpu", "fences"):
                s.command(cmd)
            s.idle(5)
            after = [tuple(map(int, m.groups())) for m in VICTIM.finditer(console(s, 2))]
            assert before and after, "the victim printed no status"
            assert after[-1][1] > before[-1][1], f"the victim stopped drawing: {before[-1]} -> {after[-1]}"
            assert after[-1][2] == 0, f"victim frames failed: {after[-1]}"
        r.check("isolation: the victim keeps drawing and the shell answers vms, sched, vgpu and fences "
                "while the hog runs", victim_and_shell)
    finally:
        s.close()
