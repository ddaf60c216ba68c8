"""An ordinary victim end to end under Bochs: a kiosk that sleeps in 10 ms steps between small
frames (guests/hog role=pacer), measured alone and then beside a GPU-bound neighbour (back-to-
back legal 110 ms workloads) and a CPU-bound one (guests/spin, which never gives the CPU back),
all of equal weight.  Behaviour, not a benchmark: the victim keeps most of its frame rate (the
wake-up bound of the run queue, vmm/vcpu/run_queue.c) and the shell keeps answering.  The
limits are loose on purpose; `make bench-isolation` prints the numbers (docs/benchmarks.md)."""
import re
import time

from harness import StepFailed
from test_guests import console
from test_kiosk import boot, wait_for

PACER = re.compile(r"pacer: t (\d+) frames (\d+) copies \d+ late \d+ failed (\d+)")
KEEPS = 0.6     # of its rate alone: the outside measurement saw 36 % before the fixes
VMS_S = 2.0     # host seconds; the benchmark's target is 0.5 s on an idle machine


def pacer_rows(s):
    return [tuple(map(int, m.groups())) for m in PACER.finditer(console(s, "pacer", settle=0.5))]


def rate(rows, t1, t2):
    """Frames per second of the pacer's own clock between its status lines in [t1, t2]."""
    w = [r for r in rows if t1 <= r[0] <= t2]
    if len(w) < 3:
        return None
    return (w[-1][1] - w[0][1]) * 1000.0 / (w[-1][0] - w[0][0])


def run(r, _iso):
    try:
        s = boot("isolation-ordinary")
    except StepFailed as e:
        r.fail("isolation-ordinary: boot", str(e))
        return
    try:
        wait_for(lambda: "hog: seq long-work begins" in console(s, "hog", settle=0.5), 600,
                 "the hog's attack to begin", poll=3.0)
        start = pacer_rows(s)
        out = s.command("vm start spin")
        assert "(spin): running" in out, out
        answers = []
        for _ in range(6):
            t0 = time.monotonic()
            s.command("vms", 60)
            answers.append(time.monotonic() - t0)
            s.idle(3)
        wait_for(lambda: "hog: seq long-work ends" in console(s, "hog", settle=0.5), 900,
                 "the hog's attack to end", poll=3.0)
        rows = pacer_rows(s)

        def keeps_its_rate():
            assert start and rows, "the pacer printed no status"
            t_spin = start[-1][0]
            alone = rate(rows, t_spin - 15000, t_spin)
            during = rate(rows, t_spin + 3000, t_spin + 25000)
            assert alone and during, f"too few status lines: {rows[-8:]}"
            print(f"     pacer alone {alone:.1f} frames/s, beside the CPU and GPU hogs {during:.1f} "
                  f"({during / alone:.0%}); vms answered in {max(answers):.2f} s at most")
            assert rows[-1][2] == 0, f"pacer frames failed: {rows[-1]}"
            assert during >= KEEPS * alone, f"the pacer kept {during / alone:.0%} of its rate alone"
        r.check("isolation-ordinary: a kiosk sleeping between small frames keeps most of its frame rate "
                "beside a CPU-bound and a GPU-bound neighbour of equal weight", keeps_its_rate)

        def shell_answers():
            assert max(answers) < VMS_S, f"vms took {max(answers):.2f} s"
        r.check("isolation-ordinary: the shell answers vms meanwhile", shell_answers)
    finally:
        s.close()
