"""VT-x guests under Bochs: the default four hello guests start and print on their
consoles; stop/start/reset act on one guest only; hostile guests are stopped with the reason
while the others keep their 100 ms cadence and a spinning guest cannot starve them."""
import os
import re
import subprocess
import time

from harness import Session, StepFailed, config_iso, make_iso

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build")
TICK = re.compile(r"^guest (\d+) tick (\d+) t=(\d+)$", re.M)
CADENCE_MS, CADENCE_TOLERANCE_MS = 100, 60     # each gap between ticks: 100 ms +- 60 ms


def console(s, vm, settle=1.0):
    """Attaches to a guest's console, lets it print for `settle` seconds, detaches; returns
    what the console showed."""
    start = len(s.raw)
    s.send(f"console {vm}\r")
    banner = s.expect(r"\[console of guest \d+ \([^)]*\), \w+; Ctrl-\] returns to the shell\]\n", 20, start)
    time.sleep(settle)
    s._pump()
    s.send("\x1d")
    back = s.expect(r"\[back to the shell\]\n", 20, banner.end())
    s.expect(r"tessera> ", 20, back.end())
    return s.raw[banner.end():back.start()]


def console_type(s, vm, name, keys, pattern, timeout=20):
    """Attaches to guest `vm` (named `name`), types `keys`, waits until its console shows
    `pattern`, and detaches."""
    start = len(s.raw)
    s.send(f"console {vm}\r")
    s.expect(rf"\[console of guest \d+ \({re.escape(name)}\)", 20, start)
    s.send(keys)
    s.expect(pattern, timeout, start)
    s.send("\x1d")
    s.expect(r"\[back to the shell\]\ntessera> ", 20, start)


def vms_table(s):
    out = s.command("vms")
    rows = {}
    for m in re.finditer(r"^\s*(\d+) (\S+)\s+(\w+)\s+(\d+)M\s+(\d+) ", out, re.M):
        rows[int(m.group(1))] = (m.group(2), m.group(3), int(m.group(5)))
    return out, rows


def check_cadence(ticks, name):
    """Ticks (n, t) of one hello guest: every gap near 100 ms, none missing."""
    assert len(ticks) >= 15, f"{name}: only {len(ticks)} ticks"
    gaps = [((t2 - t1) / (n2 - n1), k) for k, ((n1, t1), (n2, t2)) in enumerate(zip(ticks, ticks[1:]))
            if n2 > n1]
    worst, at = max((abs(g - CADENCE_MS), k) for g, k in gaps)
    # The ticks around the worst gap, as (n, t ms): a stall (t jumps) and lost or garbled output
    # (n jumps too) read differently.
    assert worst <= CADENCE_TOLERANCE_MS, (f"{name}: a tick gap is {worst + CADENCE_MS:.0f} ms; "
                                           f"ticks {ticks[max(0, at - 3):at + 5]} of {len(ticks)}")
    skipped = [(a, b) for (a, _), (b, _) in zip(ticks, ticks[1:]) if b != a + 1]
    assert not skipped, f"{name}: ticks missing between {skipped[:3]}"
    return sum(g for g, _ in gaps) / len(gaps), worst


def default_guests(r, iso):
    iso = config_iso("hello4", os.path.join(ROOT, "tests", "e2e", "configs", "hello4.dts"))
    s = Session("bochs", iso, "bochs-guests", boot_timeout=180)
    try:
        t0 = time.monotonic()
        for i in range(4):
            s.expect(rf"guest {i} \(kiosk{i}\): started from 'hello'", 180)
        s.wait_prompt(60)
        r.times.append(("bochs, four guests", time.monotonic() - t0))
        time.sleep(2)

        def all_running():
            out, rows = vms_table(s)
            assert [rows[i][1] for i in range(4)] == ["running"] * 4, out
            assert all(rows[i][2] > 0 for i in range(4)), out
        r.check("guests: four hello guests run (vms)", all_running)

        def console_shows_output():
            text = console(s, 2)
            assert "hello from guest 2 (kiosk2)" in text, text[-500:]
            ticks = [int(m.group(1)) for m in TICK.finditer(text)]
            assert ticks and set(ticks) == {2}, text[-500:]
        r.check("guests: console 2 shows guest 2's output from boot on; Ctrl-] returns", console_shows_output)

        def console_input():
            console_type(s, 1, "kiosk1", "ok", r"guest 1 key 'o'\n(.*\n)*guest 1 key 'k'")
        r.check("guests: what the operator types on a console reaches that guest", console_input)

        def stop_one():
            out = s.command("vm stop 2")
            assert "guest 2 (kiosk2): stopped" in out, out
            _, before = vms_table(s)
            time.sleep(3)
            out, after = vms_table(s)
            assert after[2][1] == "stopped" and after[2][2] == before[2][2], out
            assert all(after[i][1] == "running" and after[i][2] > before[i][2] for i in (0, 1, 3)), out
        r.check("guests: vm stop 2 stops only guest 2", stop_one)

        def start_and_reset():
            out = s.command("vm start 2")
            assert "guest 2 (kiosk2): running" in out, out
            out = s.command("vm reset kiosk2")
            assert "guest 2 (kiosk2): running" in out, out
            time.sleep(1)
            text = console(s, 2)
            assert text.count("hello from guest 2 (kiosk2)") >= 3, text[-800:]
            _, rows = vms_table(s)
            assert rows[2][1] == "running", rows
        r.check("guests: vm start 2 and vm reset 2 bring it back", start_and_reset)

        def introspection():
            out = s.command("vcpu 0")
            assert re.search(r"RIP=[0-9a-f]{16} RSP=[0-9a-f]{16}", out) and "EPTP" in out, out
            first = s.command("vcpu 0 0")
            assert re.match(r"guest 0 \(\S+\): \w+ on CPU 0, \d+ exits", first), first
            out = s.command("vcpu 0 1")
            assert re.search(r"error: guest 0 \(\S+\) has one vCPU: give 0 or nothing", out), out
            out = s.command("exits 0")
            assert re.search(r"^\s+HLT\s+\d+", out, re.M) and re.search(r"^\s+I/O\s+\d+", out, re.M), out
            out = s.command("vm stop 9")
            assert "error: no guest '9'" in out, out
            out = s.command("vm pause 1")
            assert "error: usage: vm start|stop|reset <vm>" in out, out
        r.check("guests: vcpu, exits and bad arguments", introspection)

        _, rows = vms_table(s)
        up = float(re.search(r" (\d+\.\d)s  ", s.command("vms").splitlines()[1]).group(1))
        print(f"measure: guest 0 took {rows[0][2]} exits in {up:.1f} s of its uptime "
              f"({rows[0][2] / max(up, 0.1):.0f} exits/s)")
    finally:
        s.close()


def hostile_guests(r, iso):
    dtb, blob = os.path.join(BUILD, "e2e", "guests.dtb"), os.path.join(BUILD, "e2e", "guests.blob")
    os.makedirs(os.path.dirname(dtb), exist_ok=True)
    subprocess.run(["dtc", "-I", "dts", "-O", "dtb", "-o", dtb,
                    os.path.join(ROOT, "tests", "e2e", "configs", "guests.dts")], check=True, capture_output=True)
    subprocess.run([os.path.join(BUILD, "host", "tools", "tessera-config"), "wrap", dtb, blob],
                   check=True, capture_output=True)
    s = Session("bochs", make_iso("guests-hostile", [(blob, "tessera-config")]), "bochs-hostile",
                boot_timeout=180)
    try:
        s.wait_prompt(180)
        attacks = {
            "WRMSR is refused with #GP": r"guest 3 \(hostile-msr\): WRMSR 0x174 <- 0x10 at RIP 0x[0-9a-f]+ is not allowed: #GP injected",
            "VMXON stops the guest": r"guest 4 \(hostile-vmxon\): crashed: executed VMXON at RIP 0x[0-9a-f]+",
            "a read outside its RAM stops the guest": r"guest 5 \(hostile-read\): crashed: read at GPA 0x[0-9a-f]+ outside its memory",
            "a write to the LAPIC page stops the guest": r"guest 6 \(hostile-write\): crashed: write at GPA 0xfee00000 outside its memory",
        }
        for name, pattern in attacks.items():
            r.check(f"hostile: {name}", lambda p=pattern: s.expect(p, 60))
        time.sleep(6)

        def guest_sees_gp():
            text = console(s, "hostile-msr", 0.2)
            assert "guest: caught #GP" in text and "msr contained by #GP" in text, text
        r.check("hostile: the guest's own #GP handler sees the injected fault", guest_sees_gp)

        def cpuid_hides_vmx():
            text = console(s, "cpuid-probe", 0.2)
            assert "cpuid signature TesseraVMM vmx=0" in text, text
            m = re.search(r"cpuid exit round trip (\d+) TSC ticks", text)
            assert m, text
            print(f"measure: one CPUID exit round trip takes {m.group(1)} Bochs TSC ticks (emulated cycles)")
        r.check("hostile: CPUID shows TesseraVMM and hides VMX", cpuid_hides_vmx)

        def others_unharmed():
            out, rows = vms_table(s)
            assert rows[0][1] == rows[1][1] == rows[2][1] == "running", out
            assert [rows[i][1] for i in (4, 5, 6)] == ["crashed"] * 3, out
        r.check("hostile: hello and spin keep running, the attackers are stopped", others_unharmed)

        def cadence():
            for vm in (0, 1):
                text = console(s, vm, 0.2)
                ticks = [(int(m.group(2)), int(m.group(3))) for m in TICK.finditer(text)]
                mean, worst = check_cadence(ticks[-40:], f"hello{vm}")
                print(f"measure: hello{vm} beside spin: mean tick gap {mean:.1f} ms, worst deviation {worst:.0f} ms")
        r.check("hostile: spin does not starve hello (100 ms cadence within 60 ms)", cadence)

        def responsive():
            t = time.monotonic()
            out = s.command("version", timeout=10)
            assert "Tessera" in out, out
            print(f"measure: shell answered in {time.monotonic() - t:.2f} s with spin running")
        r.check("hostile: the shell stays responsive", responsive)
    finally:
        s.close()


def run(r, iso):
    for name, scenario in (("default guests", default_guests), ("hostile guests", hostile_guests)):
        try:
            scenario(r, iso)
        except StepFailed as e:
            r.check(f"guests: {name} scenario", lambda e=e: (_ for _ in ()).throw(e))
