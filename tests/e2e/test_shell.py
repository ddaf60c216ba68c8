"""The foundation: the image boots under SeaBIOS, OVMF and Bochs, the shell answers, and the
VT-x line tells the truth about each emulator."""
import os
import re

from harness import Session, StepFailed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def shell_commands():
    """Command names from the shell's table, so the test follows the table."""
    with open(os.path.join(ROOT, "vmm", "shell", "commands.c")) as f:
        return re.findall(r'^\s*\{\s*"([a-z]+)"', f.read(), re.M)


def built_version():
    """The version string the image was built with (make writes it from git describe)."""
    with open(os.path.join(ROOT, "build", "image", "gen", "vmm", "version.h")) as f:
        return re.search(r'TESSERA_VERSION "([^"]+)"', f.read()).group(1)


def boot(r, emu, iso, name, **kw):
    holder = {}

    def do_boot():
        s = Session(emu, iso, name, **kw)
        holder["s"] = s
        s.expect(r"Tessera \S+ - GPU-partitioning hypervisor", 90 if emu != "bochs" else 180)
        s.wait_prompt(60)
        r.times.append((name, s.boot_seconds))

    if not r.check(f"{name}: boots to the prompt", do_boot):
        if "s" in holder:
            holder["s"].close()
        return None
    return holder["s"]


def cpus_listed(s, n, vtx=None):
    """`cpus`: the boot CPU runs everything; every other one of the n is parked.  vtx: what
    every CPU's VT-x column must say ("on"), or None for no column (no VMX operation)."""
    out = s.command("cpus")
    rows = re.findall(r"^\s*(\d+)\s+(\d+)\s+(\S.*?)\s{2,}(\S.*?)(?:; VT-x (.*))?$", out, re.M)
    assert len(rows) == n, f"expected {n} CPUs in {out!r}"
    # The boot CPU: every guest when guests run (the default configuration places none elsewhere).
    assert rows[0][0] == "0" and rows[0][2] == "boot", out
    assert re.fullmatch(r"(guests( kiosk\d)+ \(\d+% of its time\), )?render loop, shell", rows[0][3]), out
    for index, _, state, runs, _ in rows[1:]:
        assert state == "parked" and runs.startswith("parked (started in "), f"cpu {index}: {out!r}"
    for index, _, _, _, v in rows:
        assert v == (vtx or ""), f"cpu {index}: VT-x {v!r}, expected {vtx!r}: {out!r}"
    return rows


def common_shell_checks(r, s, name, cpus=1, vtx=None):
    def help_lists_all():
        out = s.command("help")
        missing = [c for c in shell_commands() if not re.search(rf"^\s+{c}\b", out, re.M)]
        assert not missing, f"help does not list {missing}"

    def version():
        out = s.command("version")
        assert re.match(r"Tessera \S+ \(built \d{4}-\d\d-\d\d", out), out
        assert f"Tessera {built_version()} " in out, f"expected '{built_version()}' in {out!r}"

    def bad_command():
        out = s.command("frobnicate now")
        assert "error: unknown command 'frobnicate'" in out, out

    def bad_argument():
        out = s.command("cpuid banana")
        assert "error: usage: cpuid <leaf> [subleaf]" in out, out
        out = s.command("rdmsr")
        assert "error: usage: rdmsr <msr>" in out, out

    def cpuid_vendor():
        out = s.command("cpuid 0")
        m = re.search(r"cpuid 0x00000000\.0: eax=[0-9a-f]{8} ebx=([0-9a-f]{8}) ecx=([0-9a-f]{8}) edx=([0-9a-f]{8})", out)
        assert m, out
        vendor = b"".join(int(m.group(i), 16).to_bytes(4, "little") for i in (1, 3, 2))
        assert vendor in (b"GenuineIntel", b"AuthenticAMD"), vendor

    def pci_host_bridge():
        out = s.command("pci")
        assert re.search(r"^00:00\.0 8086:[0-9a-f]{4} host bridge", out, re.M), out

    def mem_and_uptime():
        out = s.command("mem")
        assert re.search(r"pages: \d+ free of \d+", out), out
        out = s.command("uptime")
        assert re.search(r"up \d+\.\d{3} s; TSC \d+\.\d{3} MHz", out), out

    def shell_turns():
        # `stats` counts the shell's turns since the last `stats`: the second window is only as
        # long as the command between them, the first since boot.
        turns = re.compile(r"^shell: (\d+) turns in (\d+) ms since the last stats, at most (\d+) us "
                           r"apart \((\d+) us since boot\); the last command ran (\d+) us", re.M)
        first = turns.search(s.command("stats"))
        s.command("version")
        second = turns.search(s.command("stats"))
        assert first and second, "no shell line in stats"
        n1, w1, gap1, ever1, _ = (int(x) for x in first.groups())
        n2, w2, gap2, ever2, _ = (int(x) for x in second.groups())
        assert n1 > 0 and n2 > 0 and w2 < w1, (first.group(0), second.group(0))
        assert 0 < gap1 <= ever1 <= ever2 and gap2 <= ever2, (first.group(0), second.group(0))

    def line_editing():
        # "versoin": Left Left puts the cursor before "in", Backspace drops the "o", Right steps
        # over the "i", "o" goes in: "version".  Then Up recalls it from the history.
        start = len(s.raw)
        s.send("versoin\x1b[D\x1b[D\x7f\x1b[Co\r")
        s.expect(r"Tessera \S+ \(built", 20, start)
        s.expect(r"tessera> ", 20, start + 1)
        start = len(s.raw)
        s.send("\x1b[A\r")
        s.expect(r"Tessera \S+ \(built", 20, start)
        s.expect(r"tessera> ", 20, start + 1)

    def gtt_map():
        out = s.command("gtt")
        assert re.search(r"^GGTT 4096 MiB \(1048576 entries\), aperture 256 MiB, backend model", out, re.M), out
        assert re.search(r"^  fence pool\s+0x001000000-0x002ffffff\s+32 MiB", out, re.M), out
        windows = re.findall(r"^  vgpu (\d+)\s+kiosk\1 ", out, re.M)
        assert windows == ["0", "1", "2", "3"], out

    r.check(f"{name}: help lists every command", help_lists_all)
    r.check(f"{name}: gtt maps the default configuration's graphics memory", gtt_map)
    r.check(f"{name}: version shows git describe and build date", version)
    r.check(f"{name}: unknown command gets a one-line error", bad_command)
    r.check(f"{name}: bad arguments print the usage line", bad_argument)
    r.check(f"{name}: cpuid reads the vendor", cpuid_vendor)
    r.check(f"{name}: pci shows the host bridge", pci_host_bridge)
    r.check(f"{name}: mem and uptime answer", mem_and_uptime)
    r.check(f"{name}: line editing and history", line_editing)
    r.check(f"{name}: stats counts the shell's turns in windows", shell_turns)
    if cpus == 1:
        r.check(f"{name}: cpus lists the one CPU, running everything", lambda: cpus_listed(s, 1))
    else:
        r.check(f"{name}: cpus lists the boot CPU running everything and {cpus - 1} parked, "
                f"VT-x {vtx or 'off'} on each", lambda: cpus_listed(s, cpus, vtx))


def smp_checks(r, iso):
    """QEMU with two CPUs (TCG: no VT-x, so no guests): the AP is found in SeaBIOS's MADT,
    started and parked; the boot CPU keeps the shell; an exception on the AP loses only the AP.
    Then four CPUs: every AP started and parked."""
    name = "qemu-smp2"
    s = boot(r, "qemu", iso, name, cpus=2)
    if not s:
        return
    try:
        r.check(f"{name}: boot log says the AP parked", lambda: s.expect(
            r"smp: 2 CPUs in the MADT; 1 parked, 0 did not start; slowest start \d+ us", 5))

        def two_cpus():
            rows = cpus_listed(s, 2)
            assert rows[1][1] == "1", f"AP's APIC id: {rows!r}"

        def shell_still_works():
            assert "Tessera" in s.command("version")
            out = s.command("mem")
            assert re.search(r"pages: \d+ free of \d+", out), out

        def ap_fault():
            # An invalid opcode on the AP (as a bug running there would take): reported with
            # the CPU's number, that CPU lost, logged once, and the boot CPU goes on.
            mark = len(s.raw)
            out = s.command("cpus fault 1", 30)
            assert "cpus fault: CPU 1 is lost: exception #UD invalid opcode at RIP 0x" in out, out
            s.expect(r"\*\*\* hypervisor exception on CPU 1: #UD invalid opcode \(vector 6\)", 5, mark)
            s.expect(r"CPU 1 stopped; the hypervisor goes on with the others\.", 5, mark)
            rows = re.findall(r"^\s*1\s+1\s+lost\s+nothing: exception #UD", s.command("cpus"), re.M)
            assert rows, s.raw[mark:]
            s.expect(r"error: smp: CPU 1 is out of service: exception #UD invalid opcode at RIP "
                     r"0x[0-9a-f]+; the others go on", 5, mark)
            out = s.command("cpus fault 1")
            assert "CPU 1 is not a parked application processor" in out, out
            assert "boot CPU stops the hypervisor" in s.command("cpus fault 0"), "cpus fault 0"
            shell_still_works()

        r.check(f"{name}: cpus lists the boot CPU and the parked AP", two_cpus)
        r.check(f"{name}: the shell answers with the AP parked", shell_still_works)
        r.check(f"{name}: an exception on the AP loses that CPU only: reported with its number, "
                f"`cpus` says lost and why, logged once, the shell goes on", ap_fault)
    finally:
        s.close()
    name = "qemu-smp4"
    s = boot(r, "qemu", iso, name, cpus=4)
    if not s:
        return
    try:
        r.check(f"{name}: three APs found in the MADT, started one at a time and parked", lambda: s.expect(
            r"smp: 4 CPUs in the MADT; 3 parked, 0 did not start; slowest start \d+ us", 5))

        def four_cpus():
            rows = cpus_listed(s, 4)
            assert [row[1] for row in rows] == ["0", "1", "2", "3"], f"APIC ids: {rows!r}"
        r.check(f"{name}: cpus lists the boot CPU and three parked APs", four_cpus)
    finally:
        s.close()


def run(r, iso):
    for emu, name in (("qemu", "qemu-bios"), ("qemu-uefi", "qemu-uefi")):
        s = boot(r, emu, iso, name)
        if not s:
            continue
        try:
            r.check(f"{name}: says VT-x is not available", lambda: s.expect(
                r"VT-x not available: guests not started \(CPUID\.1:ECX\.VMX\[bit 5\] is 0\)", 5))
            common_shell_checks(r, s, name)
        finally:
            s.close()
    smp_checks(r, iso)

    # Two CPUs: the AP is started, parked and put in VMX operation too (woken by an IPI to do
    # it); the guests still run on the boot CPU.
    s = boot(r, "bochs", iso, "bochs", cpus=2)
    if not s:
        return
    try:
        r.check("bochs: the AP enters VMX operation too", lambda: s.expect(
            r"vmx: on in 1 of 1 application processors", 5))
        r.check("bochs: VT-x available with the capabilities read from the MSRs", lambda: s.expect(
            r"VT-x: available \(VMCS rev 0x2b; EPT, VPID, unrestricted guest, preemption timer\)", 5))

        def vmx_basic():
            out = s.command("rdmsr 0x480")
            assert "msr 0x480 = 0x00d810000000002b" in out, out

        def missing_msr():
            out = s.command("rdmsr 0xdeadbeef")
            assert "error: rdmsr 0xdeadbeef: the CPU raised #GP" in out, out
            out = s.command("version")     # and the shell is still alive
            assert "Tessera" in out, out

        r.check("bochs: rdmsr reads IA32_VMX_BASIC", vmx_basic)
        r.check("bochs: rdmsr of a missing MSR is an error, not a crash", missing_msr)
        common_shell_checks(r, s, "bochs", cpus=2, vtx="on")
    finally:
        s.close()
