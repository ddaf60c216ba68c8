"""Debian's own Linux kernel with two vCPUs, under Bochs with two CPUs
(tests/e2e/configs/linux-smp.dts: vCPU 0 on the boot CPU beside signage, vCPU 1 alone on CPU 1).
Linux finds both in its ACPI MADT and starts the second itself with INIT and STARTUP IPIs:
`smp: Brought up 1 node, 2 CPUs`, `nproc` says 2; two busy shell jobs run at once and both
complete, and both vCPUs take timer interrupts and each other's IPIs (reschedule and function
call) meanwhile; the shell's `vcpu linux 1` and `cpus` show the second vCPU started on CPU 1;
`poweroff` parks the second vCPU and ends the guest as on one vCPU.

Uses the kernel and initramfs of `make linux`, as test_linux does."""
import os
import re

from harness import Session, StepFailed, config_iso
from test_linux import INITRD, KERNEL, LinuxConsole, boot_to_shell

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(HERE, "configs", "linux-smp.dts")
# A busy loop for busybox's sh, written to a file (the guest's shell line holds 70 characters).
JOB = "n=0; while [ $n -lt 6000 ]; do n=$((n+1)); done"


def per_cpu(text, name):
    """The two per-CPU counts of /proc/interrupts line `name` (LOC, RES, CAL)."""
    m = re.search(rf"^\s*{name}:\s+(\d+)\s+(\d+)", text, re.M)
    assert m, f"no {name} line for two CPUs in /proc/interrupts:\n{text}"
    return int(m.group(1)), int(m.group(2))


def busy_ticks(text):
    """user + nice + system ticks of cpu0 and cpu1 in /proc/stat."""
    ticks = {}
    for m in re.finditer(r"^cpu([01]) (\d+) (\d+) (\d+)", text, re.M):
        ticks[int(m.group(1))] = int(m.group(2)) + int(m.group(3)) + int(m.group(4))
    assert set(ticks) == {0, 1}, f"/proc/stat has no cpu0 and cpu1 lines:\n{text}"
    return ticks


def run(r, iso):
    for path in (KERNEL, INITRD):
        if not os.path.exists(path):
            r.fail("linux-smp: scenario", f"{path} is missing: `make linux` builds the Linux guest's modules")
            return
    iso = config_iso("linux-smp", CONFIG, [(KERNEL, "vmlinuz", True), (INITRD, "initramfs", True)])
    s = Session("bochs", iso, "bochs-linux-smp", megs=1024, boot_timeout=180, cpus=2)
    con = None
    try:
        s.wait_prompt(180)

        def boots():
            nonlocal con
            out = s.command("vms")
            assert re.search(r"^\s*0 linux\s+running ", out, re.M), out
            con = LinuxConsole(s)
            boot_to_shell(s, con, "boot")
            dmesg = con.run("dmesg | grep -E 'smp: Brought|Allowing'")
            assert "smp: Brought up 1 node, 2 CPUs" in dmesg, dmesg
            n = con.run("nproc").strip()
            assert n == "2", f"nproc says {n!r}"
            print(f"     {dmesg.strip().splitlines()[-1].split('] ', 1)[-1]}; nproc {n}")
        if not r.check("linux-smp: Debian's kernel brings up both vCPUs (`smp: Brought up 1 node, 2 CPUs`, "
                       "nproc 2)", boots):
            return

        def parallel():
            con.run(f"echo '{JOB}' >/job")
            irq0, stat0 = con.run("cat /proc/interrupts"), con.run("head -3 /proc/stat")
            out = con.run("sh /job & sh /job & wait; echo both-done", 600)
            assert "both-done" in out, out
            irq1, stat1 = con.run("cat /proc/interrupts"), con.run("head -3 /proc/stat")
            a, b = busy_ticks(stat0), busy_ticks(stat1)
            grew = {cpu: b[cpu] - a[cpu] for cpu in (0, 1)}
            assert all(v > 0 for v in grew.values()), f"a CPU did no work during the jobs: {grew}"
            counts = {name: (per_cpu(irq0, name), per_cpu(irq1, name)) for name in ("LOC", "RES", "CAL")}
            loc = counts["LOC"]
            assert loc[1][0] > loc[0][0] and loc[1][1] > loc[0][1], f"LAPIC timer not counting on both: {loc}"
            ipis = [sum(counts[n][1][cpu] - counts[n][0][cpu] for n in ("RES", "CAL")) for cpu in (0, 1)]
            assert all(v > 0 for v in ipis), f"no reschedule or function-call IPI on a CPU: {counts}"
            print(f"     busy ticks during the jobs: cpu0 +{grew[0]}, cpu1 +{grew[1]}; "
                  f"IPIs taken (RES + CAL): cpu0 +{ipis[0]}, cpu1 +{ipis[1]}")
        r.check("linux-smp: two shell jobs run at once on both vCPUs and complete; both take timer "
                "interrupts and each other's IPIs", parallel)

        def shell_view():
            nonlocal con
            con.close()
            con = None
            out = s.command("vcpu linux 1")
            assert re.search(r"^guest 0 \(linux\) vCPU 1 of 2 \(started\): running on CPU 1,", out, re.M), out
            out = s.command("cpus")
            assert re.search(r"^\s*1\s+\d+\s+running\s+guests linux\.1 ", out, re.M), out
            assert re.search(r"^\s*0\s+\d+\s+boot\s+guests linux\.0 signage ", out, re.M), out
            bad = s.command("vcpu linux 2")
            assert "has 2 vCPUs: give 0 to 1" in bad, bad
        r.check("linux-smp: `vcpu linux 1` and `cpus` show vCPU 1 started, on CPU 1", shell_view)

        def poweroff():
            nonlocal con
            con = LinuxConsole(s)
            mark = len(s.raw)
            con.s.send("poweroff\r")
            con.wait(r"reboot: Power down", 300)
            con.close()
            con = None
            out = s.command("vms")
            assert re.search(r"^\s*0 linux\s+exited .*\n\s+powered off \(ACPI S5\)", out, re.M), out
            assert re.search(r"^\s*1 signage\s+running ", out, re.M), out
            assert re.search(r"guest 0 \(linux\): vCPU 1 halted with interrupts off at RIP \S+: parked",
                             s.raw[mark:]), s.raw[mark:][-3000:]
        r.check("linux-smp: `poweroff` parks vCPU 1 and ends only that guest (ACPI S5)", poweroff)
    except StepFailed as e:
        r.fail("linux-smp: scenario", str(e))
    finally:
        s.close()
