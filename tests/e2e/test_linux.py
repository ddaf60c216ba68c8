"""Debian's own Linux kernel as a kiosk guest, under Bochs with the shipped
configs/kiosk-linux.dts: the unmodified bzImage boots beside signage, dashboard and idle to its
busybox shell on `console linux`; /proc/version names the Debian kernel; the LAPIC timer and
the serial port's IRQ 4 count in /proc/interrupts; `sleep 2` takes 2 s of the hypervisor's own
clock; /dev/fb0 exists and the guest's tile shows its picture; the kiosk guests keep completing
GPU work meanwhile; `poweroff` ends only that guest and `vm start linux` brings it back.

The kernel and initramfs come from `make linux` (Debian's packages, docs/linux-image.md); the
Makefile passes their paths in TESSERA_LINUX_KERNEL and TESSERA_LINUX_INITRD."""
import os
import re
import sys
import time

from harness import Session, StepFailed, config_iso

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import screenshot  # noqa: E402

KERNEL = os.environ.get("TESSERA_LINUX_KERNEL", os.path.join(ROOT, "build", "debian", "vmlinuz"))
INITRD = os.environ.get("TESSERA_LINUX_INITRD", os.path.join(ROOT, "build", "image", "linux", "initramfs.cpio.gz"))
SPLASH = os.path.join(ROOT, "build", "image", "linux", "splash.ppm")
CONFIG = os.path.join(ROOT, "configs", "kiosk-linux.dts")
KIOSKS = ("signage", "dashboard", "idle")
BOOT_TIMEOUT = 1500             # the bzImage's xz decompression alone is ~100 s of emulated time
SHELL_PROMPT = r"linux:[^\n#]*# "
STAMP = re.compile(r"<(\d+)\.(\d{6})> ([^\n]*)")
STAMP_PREFIX = re.compile(r"^<\d+\.\d{6}> ", re.M)
ANSI_QUERY = re.compile(r"\x1b\[6n")


class LinuxConsole:
    """`console linux time` kept open: the guest's serial console, each line stamped with the
    hypervisor's uptime."""

    def __init__(self, s):
        self.s = s
        self.start = len(s.raw)
        s.send("console linux time\r")
        s.expect(r"\[console of guest \d+ \(linux\), \w+; Ctrl-\] returns to the shell\]\n", 20, self.start)
        self.live = len(s.raw)

    def wait(self, pattern, timeout):
        return self.s.expect(pattern, timeout, self.live)

    # The guest's shell edits its line on an 80-column terminal (nobody answers its cursor
    # query): a longer command comes back wrapped, and its echo would not be found.
    MAX_LINE = 70

    def run(self, line, timeout=120):
        """Types a shell command; returns its output (up to the next prompt)."""
        if len(line) > self.MAX_LINE:
            raise ValueError(f"{len(line)} characters do not fit the guest shell's line: {line}")
        mark = len(self.s.raw)
        self.s.send(line + "\r")
        echo = self.s.expect(re.escape(line) + r"[^\n]*\n", timeout, mark)
        end = self.s.expect(SHELL_PROMPT, timeout, echo.end())
        return STAMP_PREFIX.sub("", ANSI_QUERY.sub("", self.s.raw[echo.end():end.start()]))

    def close(self):
        self.s.send("\x1d")
        self.s.expect(r"\[back to the shell\]\n", 30, self.live)
        self.s.wait_prompt(30)


def stamped(text, what):
    """The hypervisor time (seconds) stamped on the first console line containing `what`."""
    for m in STAMP.finditer(text):
        if what in m.group(3):
            return int(m.group(1)) + int(m.group(2)) / 1e6
    raise AssertionError(f"no stamped console line with {what!r}")


def completed(s):
    """GPU workloads completed per kiosk guest (`vgpu`)."""
    out = s.command("vgpu")
    done = {m.group(1): int(m.group(2))
            for m in re.finditer(r"^\s*\d+ (\S+)\s+\d+\s+\d+\s+\d+\s+(\d+)", out, re.M)}
    missing = [k for k in KIOSKS if k not in done]
    assert not missing, f"`vgpu` lists no {missing}:\n{out}"
    return done


def boot_to_shell(s, con, label, after=None):
    """Waits for the guest's banner (the first one printed after the console text `after`,
    when given: the console's history holds earlier boots) and its shell; returns the guest's
    own uptime in its banner."""
    lead = re.escape(after) + r"[\s\S]*?" if after else ""
    banner = con.wait(lead + r"tessera-linux: Linux (\S+) up ([\d.]+) s, ([^\n]*)\n", BOOT_TIMEOUT)
    s.expect(SHELL_PROMPT, 300, banner.end())
    mark = len(s.raw)
    con.s.send("\r")                         # a fresh prompt, in case the first came before we looked
    s.expect(SHELL_PROMPT, 120, mark)
    print(f"     {label}: banner '{banner.group(0)[banner.group(0).index('tessera-linux'):].strip()}'")
    return float(banner.group(2))


def run(r, iso):
    for path in (KERNEL, INITRD, SPLASH):
        if not os.path.exists(path):
            r.fail("linux: scenario", f"{path} is missing: `make linux` builds the Linux guest's modules")
            return
    iso = config_iso("kiosk-linux", CONFIG, [(KERNEL, "vmlinuz", True), (INITRD, "initramfs", True)])
    s = Session("bochs", iso, "bochs-linux", megs=1024, boot_timeout=180)
    con = None
    try:
        s.wait_prompt(180)
        t_start = time.monotonic()
        before = {}

        def listed():
            out = s.command("vms")
            assert re.search(r"^\s*0 linux\s+running .*linux vmlinuz\+initramfs$", out, re.M), out
            for k in KIOSKS:
                assert re.search(rf"^\s*\d+ {k}\s+running .*tessera {k}$", out, re.M), out
            before.update(completed(s))
        r.check("linux: `vms` shows the Linux guest (kernel + initrd) running beside three kiosk guests", listed)

        shell = {}

        def boots():
            nonlocal con
            con = LinuxConsole(s)
            shell["uptime"] = boot_to_shell(s, con, "first boot")
            shell["wall"] = time.monotonic() - t_start
            print(f"     boot to the busybox prompt: {shell['wall']:.0f} s wall clock under Bochs, "
                  f"guest uptime {shell['uptime']:.2f} s at its banner")
        if not r.check("linux: the stock Debian bzImage boots to its busybox shell on `console linux`", boots):
            return

        def version():
            out = con.run("cat /proc/version")
            assert re.search(r"Linux version 6\.1\.\d+-\d+-amd64 .*Debian", out), out
            print(f"     {out.strip()}")
        r.check("linux: /proc/version names Debian's kernel", version)

        def interrupts():
            # Short lines: the guest's shell wraps what it echoes at 80 columns.
            first = con.run("grep -E '^ *(LOC|4):' /proc/interrupts")
            con.run("sleep 1")
            second = con.run("grep -E '^ *(LOC|4):' /proc/interrupts")
            out = first + second

            def counts(text):
                c = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s*(LOC|4):\s+(\d+)", text, re.M)}
                assert set(c) == {"LOC", "4"}, f"no LOC or IRQ 4 line in /proc/interrupts:\n{out}"
                return c
            a, b = counts(first), counts(second)
            assert b["LOC"] > a["LOC"] and b["4"] > a["4"], f"LAPIC timer or IRQ 4 not counting:\n{out}"
            assert re.search(r"^\s*4:.*ttyS0", second, re.M) or "serial" in second, second
            print(f"     LOC {a['LOC']} -> {b['LOC']}, IRQ 4 {a['4']} -> {b['4']} in 1 s")
        r.check("linux: /proc/interrupts shows the LAPIC timer and the serial port's IRQ 4 counting", interrupts)

        def sleep2():
            mark = len(s.raw)
            con.run("echo sleep-start; sleep 2; echo sleep-end")
            text = s.raw[mark:]
            took = stamped(text, "sleep-end") - stamped(text, "sleep-start")
            print(f"     `sleep 2` took {took:.3f} s of the hypervisor's clock")
            assert 1.8 <= took <= 2.2, f"`sleep 2` took {took:.3f} s of the hypervisor's clock"
        r.check("linux: `sleep 2` takes 2 s (+-10%) of the hypervisor's own clock", sleep2)

        def detach():
            nonlocal con
            if con:
                con.close()
                con = None

        def framebuffer():
            out = con.run("ls -l /dev/fb0; cat /sys/class/graphics/fb0/virtual_size")
            assert re.search(r"^c\S+ .* 29,\s+0 .*/dev/fb0$", out, re.M), out
            detach()
            start = len(s.raw)
            s.send("screenshot linux\r")
            s.expect(r"TSHOT (END [0-9a-f]{8}|ABORT[^\n]*)\n", 300, start)
            s.wait_prompt(30)
            shot = screenshot.decode(s.raw[start:])
            with open(SPLASH, "rb") as f:
                ppm = f.read()
            m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+255\s", ppm)
            w, h, pic = int(m.group(1)), int(m.group(2)), ppm[m.end():]
            assert (shot.width, shot.height) == (w, h), f"framebuffer {shot.width}x{shot.height}, picture {w}x{h}"
            wrong = sum(1 for i in range(0, len(pic), 3) if shot.rgb[i:i + 3] != pic[i:i + 3])
            screenshot.write_png(shot, os.path.join(ROOT, "build", "e2e", "bochs-linux", "linux.png"))
            assert wrong == 0, f"{wrong} of {w * h} pixels differ from the guest's picture"
        r.check("linux: /dev/fb0 exists and `screenshot linux` is the guest's picture, pixel for pixel",
                framebuffer)

        def kiosks_render():
            detach()
            after = completed(s)
            slow = [k for k in KIOSKS if k != "idle" and after[k] <= before[k]]
            assert not slow, f"{slow} completed no GPU work while Linux booted: {before} -> {after}"
            print(f"     GPU workloads completed while Linux booted: "
                  + ", ".join(f"{k} {before[k]} -> {after[k]}" for k in KIOSKS))
        r.check("linux: the kiosk guests keep completing GPU work while Linux boots and runs", kiosks_render)

        def poweroff():
            nonlocal con
            detach()
            con = LinuxConsole(s)
            con.s.send("poweroff\r")
            con.wait(r"reboot: Power down", 300)
            detach()
            out = s.command("vms")
            assert re.search(r"^\s*0 linux\s+exited .*\n\s+powered off \(ACPI S5\)", out, re.M), out
            for k in KIOSKS:
                assert re.search(rf"^\s*\d+ {k}\s+running ", out, re.M), out
        r.check("linux: `poweroff` in the guest ends only that guest (ACPI S5)", poweroff)

        def restart():
            nonlocal con
            mark = completed(s)
            s.command("vm start linux")
            con = LinuxConsole(s)
            boot_to_shell(s, con, "after vm start", after="reboot: Power down")
            out = con.run("echo back; cat /proc/uptime")
            assert "back" in out, out
            detach()
            after = completed(s)
            assert all(after[k] > mark[k] for k in KIOSKS if k != "idle"), f"{mark} -> {after}"
        r.check("linux: `vm start linux` boots it again to its shell", restart)
    except StepFailed as e:
        r.fail("linux: scenario", str(e))
    finally:
        s.close()
