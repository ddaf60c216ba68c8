"""The Linux guest's kernel and initramfs, proven without Tessera: plain QEMU (TCG, its own
firmware and Linux loader) boots Debian's bzImage with the initramfs the build made, on the
command line of configs/kiosk-linux.dts plus a VESA mode for QEMU's standard VGA (the
framebuffer Tessera gives is its own, set by its loader).  The checks: /init's one banner line
with the kernel version, uptime and the picture on /dev/fb0; the mounts; a shell on ttyS0 with
job control (a background job, then a foreground one stopped by Ctrl-C through the terminal);
the picture on the screen (QEMU's screendump against the PPM); `poweroff` handled by busybox
init, ending in the kernel's halt (acpi=off: no power-off method)."""
import os
import re
import select
import socket
import subprocess
import tempfile
import time

from test_tools import read_ppm

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROMPT = "linux:/# "
# VESA mode 0x318: 1024x768 in 24 bits (QEMU's std VGA BIOS); fbpicture centres the picture.
VGA_MODE = "vga=0x318"
SCREEN = (1024, 768)


def kiosk_cmdline(config="kiosk-linux.dts"):
    """The Linux guest's command line from configs/<config>, so the test boots with it."""
    with open(os.path.join(ROOT, "configs", config)) as f:
        m = re.search(r'cmdline = "([^"]*)"', f.read())
    if not m:
        raise AssertionError(f"configs/{config} has no cmdline")
    return m.group(1)


class Qemu:
    def __init__(self, kernel, initrd, work, cmdline=None, megs=256, qemu_args=()):
        self.work = work
        self.monitor_path = os.path.join(work, "monitor")
        cmdline = kiosk_cmdline() if cmdline is None else cmdline
        argv = ["qemu-system-x86_64", "-m", str(megs), "-kernel", kernel, "-initrd", initrd,
                "-append", f"{cmdline} {VGA_MODE}", "-display", "none", "-vga", "std",
                "-serial", "stdio", "-monitor", f"unix:{self.monitor_path},server=on,wait=off",
                "-no-reboot", *qemu_args]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        self.out = b""
        self.started = time.monotonic()

    def _pump(self, timeout):
        r, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if r:
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                return False
            self.out += chunk
        return True

    def text(self, since=0):
        return self.out[since:].decode(errors="replace")

    def expect(self, pattern, timeout, since=0):
        """Waits until pattern (a regex) appears in the output after byte `since`."""
        end = time.monotonic() + timeout
        while True:
            m = re.search(pattern, self.text(since))
            if m:
                return m
            left = end - time.monotonic()
            if left <= 0 or not self._pump(min(left, 0.5)):
                tail = self.text(since)[-600:]
                raise AssertionError(f"no {pattern!r} within {timeout} s; output ends:\n{tail}")

    def send(self, text):
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def command(self, line, timeout=30):
        """Types a line, waits for the next prompt, returns what the command printed."""
        since = len(self.out)
        self.send(line + "\n")
        self.expect(re.escape(PROMPT), timeout, since)
        out = self.text(since)
        out = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", out)     # ash's cursor queries
        body = out.split(PROMPT)[0].replace("\r", "")
        lines = body.split("\n")
        return "\n".join(lines[1:]).strip()                 # drop the echoed command line

    def monitor(self, line):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(self.monitor_path)
        s.sendall(line.encode() + b"\n")
        time.sleep(1.0)
        s.close()

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def compare_picture(t, screen_path, splash_path):
    """The screen shows the splash centred; QEMU's screendump is a PPM of the screen."""
    sw, sh, screen = read_ppm(screen_path)
    pw, ph, pic = read_ppm(splash_path)
    t.expect((sw, sh) == SCREEN, f"screen is {sw}x{sh}, want {SCREEN}")
    if (sw, sh) != SCREEN:
        return
    dx, dy = (sw - pw) // 2, (sh - ph) // 2
    mismatches = 0
    for y in range(0, ph, 7):
        for x in range(0, pw, 5):
            s = (y + dy) * sw * 3 + (x + dx) * 3
            p = y * pw * 3 + x * 3
            if screen[s:s + 3] != pic[p:p + 3]:
                mismatches += 1
    t.expect(mismatches == 0, f"{mismatches} sampled pixels differ from the picture")
    # Outside the picture: its top-left colour.
    t.expect(screen[0:3] == pic[0:3], "the screen around the picture is not its background")


def run_all(t, kernel, initrd, splash):
    with tempfile.TemporaryDirectory() as work:
        q = Qemu(kernel, initrd, work)
        state = {}
        try:
            def banner(tt):
                m = q.expect(r"tessera-linux: Linux (\S+) up ([0-9.]+) s, ([^\r\n]*)\r?\n", 180)
                state["version"], state["uptime"] = m.group(1), float(m.group(2))
                state["wall"] = time.monotonic() - q.started
                tt.expect(re.fullmatch(r"6\.1\.0-\d+-amd64", m.group(1)) is not None,
                          f"kernel version {m.group(1)!r} is not Debian 12's 6.1.0-N-amd64")
                tt.expect(m.group(3).startswith("picture 512x384 on /dev/fb0 (VESA VGA 1024x768,"),
                          f"banner's picture part: {m.group(3)!r}")
                tt.expect(len(re.findall(r"tessera-linux:", q.text())) == 1,
                          "more than one banner line")

            def shell(tt):
                q.expect(re.escape(PROMPT), 60)
                tt.expect("job control turned off" not in q.text(), "the shell has no job control")
                version = q.command("cat /proc/version")
                tt.expect(state.get("version", "?") in version and "Debian" in version,
                          f"/proc/version: {version!r}")
                mounts = q.command("cat /proc/mounts")
                for fs, at in (("proc", "/proc"), ("sysfs", "/sys"), ("devtmpfs", "/dev")):
                    tt.expect(re.search(rf"^\S+ {at} {fs} ", mounts, re.M) is not None,
                              f"{fs} not mounted on {at}: {mounts!r}")
                fb = q.command("cat /sys/class/graphics/fb0/name; ls -l /dev/fb0")
                tt.expect("VESA VGA" in fb and re.search(r"^c.* 29,\s+0 .*/dev/fb0$", fb, re.M),
                          f"/dev/fb0: {fb!r}")
                tty = q.command("tty")
                tt.expect(tty == "/dev/ttyS0", f"the shell's terminal is {tty!r}, not /dev/ttyS0")

            def job_control(tt):
                q.command("sleep 300 &")
                jobs = q.command("jobs")
                tt.expect(re.search(r"\[1\]\+?\s+Running\s+sleep 300", jobs) is not None,
                          f"jobs: {jobs!r}")
                since = len(q.out)
                q.send("sleep 300\n")
                time.sleep(2)
                q.send("\x03")      # Ctrl-C: the terminal signals its foreground process group
                q.expect(re.escape(PROMPT), 15, since)
                status = q.command("echo status=$?")
                tt.expect(status == "status=130", f"Ctrl-C did not stop the foreground job "
                          f"(exit status {status!r}, want 130 = SIGINT)")
                q.command("kill %1")
                left = q.command("jobs; echo done")
                tt.expect("sleep 300" not in left.replace("Terminated", "") or
                          "Terminated" in left, f"background job not killed: {left!r}")

            def picture(tt):
                shot = os.path.join(work, "screen.ppm")
                q.monitor(f"screendump {shot}")
                tt.expect(os.path.exists(shot), "QEMU wrote no screendump")
                if os.path.exists(shot):
                    compare_picture(tt, shot, splash)
                    os.replace(shot, os.path.join(ROOT, "build", "linux-test-screen.ppm"))

            def poweroff(tt):
                since = len(q.out)
                q.send("poweroff\n")
                # acpi=off leaves the kernel no way to switch power off: it halts with
                # interrupts off (what Tessera takes as the guest powering off).
                q.expect(r"Requesting system poweroff[\s\S]*reboot: (Power down|System halted)",
                         60, since)

            t.check("QEMU boot: /init's banner names the Debian kernel, uptime and the picture",
                    banner)
            t.check("QEMU boot: shell on ttyS0, proc/sysfs/devtmpfs mounted, /dev/fb0", shell)
            t.check("QEMU boot: job control (background job, Ctrl-C stops the foreground one)",
                    job_control)
            t.check("QEMU boot: the screen shows the picture (screendump vs the PPM)", picture)
            t.check("QEMU boot: poweroff reaches the kernel through busybox init", poweroff)
        finally:
            q.close()
            with open(os.path.join(ROOT, "build", "linux-test-serial.log"), "wb") as f:
                f.write(q.out)
        if "uptime" in state:
            print(f"linux-test: QEMU TCG boot to the banner: {state['wall']:.1f} s wall, "
                  f"guest uptime {state['uptime']:.2f} s (kernel {state['version']})")
