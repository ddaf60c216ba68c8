"""End-to-end harness: boots the image in an emulator (through tools/emulator.py, as `make run`
does) and talks to the real serial shell over TCP.  Every wait has a timeout; a step that times
out fails with what the console showed."""
import os
import re
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import emulator  # noqa: E402

PROMPT = "tessera> "
LOG_LINE = re.compile(r"\[\s*\d+\.\d{6}\] [^\n]*\n")     # a hypervisor log line
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r|\x07")


class StepFailed(Exception):
    pass


class Session:
    """One booted emulator with its console."""

    def __init__(self, emu, iso, name, megs=512, boot_timeout=90, cpus=1):
        self.emu, self.name = emu, name
        self.workdir = os.path.join(emulator.ROOT, "build", "e2e", name)
        os.makedirs(self.workdir, exist_ok=True)
        self.console_log = open(os.path.join(self.workdir, "console.log"), "w")
        self.raw = ""
        srv = socket.socket()
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        srv.settimeout(1)
        self.t0, self.t0_wall = time.monotonic(), time.time()
        self.proc = emulator.start(emu, iso, srv.getsockname()[1], workdir=self.workdir, megs=megs,
                                   log=os.path.join(self.workdir, "emulator.log"), cpus=cpus)
        try:
            self.conn = self._accept(srv, boot_timeout)
        finally:
            srv.close()
        self.conn.settimeout(0.2)
        self.boot_seconds = None

    def _accept(self, srv, timeout):
        """The emulator's serial connection; an emulator that exits or never connects fails the
        step at once with the last lines of its logs."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                conn, _ = srv.accept()
                return conn
            except socket.timeout:
                pass
            if self.proc.poll() is not None:
                why = f"{self.emu} exited (status {self.proc.returncode}) before it opened its serial port"
            elif time.monotonic() > deadline:
                why = f"{self.emu} did not open its serial port within {timeout} s"
            else:
                continue
            self.close()
            raise StepFailed(why + self.log_tail())

    def log_tail(self, lines=12):
        """The last lines of the emulator's output (and Bochs's own log), for failure messages."""
        out = ""
        for name in ("emulator.log", "bochs.log"):
            path = os.path.join(self.workdir, name)
            try:
                if os.path.getmtime(path) < self.t0_wall:
                    continue            # left by an earlier run in this folder
                with open(path, "rb") as f:
                    tail = f.read()[-4000:].decode("utf-8", "replace").splitlines()[-lines:]
            except OSError:
                continue
            if tail:
                out += f"\n  last lines of {path}:\n    " + "\n    ".join(tail)
        return out

    def _pump(self):
        try:
            data = self.conn.recv(65536)
        except socket.timeout:
            return
        except OSError:
            data = b""
        if not data:
            if self.proc.poll() is not None:
                raise StepFailed(f"{self.emu} exited (status {self.proc.returncode})" + self.log_tail())
            time.sleep(0.05)
            return
        text = data.decode("utf-8", "replace")
        self.console_log.write(text)
        self.console_log.flush()
        self.raw += ANSI.sub("", text)

    def expect(self, pattern, timeout, since=0):
        """Waits until `pattern` (a regex) appears in the console text after offset `since`;
        returns the match."""
        rx = re.compile(pattern, re.M)
        deadline = time.monotonic() + timeout
        while True:
            m = rx.search(self.raw, since)
            if m:
                return m
            if time.monotonic() > deadline:
                tail = self.raw[max(since, len(self.raw) - 600):]
                raise StepFailed(f"waited {timeout}s for /{pattern}/; console ended with:\n{tail}")
            self._pump()

    def idle(self, seconds):
        """Lets the machine run for `seconds`, reading its console all the while: an emulator
        whose serial output nobody reads stalls once the socket's buffer is full (Bochs then
        stops the whole machine), so a plain sleep under a chatty log measures a frozen guest."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self._pump()

    def wait_prompt(self, timeout):
        m = self.expect(re.escape(PROMPT), timeout)
        self.boot_seconds = time.monotonic() - self.t0
        return m

    def send(self, text):
        # Byte by byte with a short gap: a real UART FIFO holds 16 bytes and the shell polls it.
        for ch in text.encode():
            self.conn.sendall(bytes([ch]))
            time.sleep(0.002)

    def command(self, line, timeout=20, keep_log=False):
        """Types `line`, waits for the next prompt and returns what the command printed.  Log
        lines the hypervisor prints meanwhile (they can land in the middle of the echo) are
        left out of both the echo and the result, unless keep_log (for `log` itself)."""
        start = len(self.raw)
        self.send(line + "\r")
        if keep_log:
            echo = self.expect(re.escape(line) + r"\n", timeout, start)
            end = self.expect(re.escape(PROMPT), timeout, echo.end())
            return self.raw[echo.end():end.start()]
        rx = re.compile(re.escape(line) + r"\n(.*?)" + re.escape(PROMPT), re.S)
        deadline = time.monotonic() + timeout
        while True:
            m = rx.search(LOG_LINE.sub("", self.raw[start:]))
            if m:
                return m.group(1)
            if time.monotonic() > deadline:
                raise StepFailed(f"waited {timeout}s for the command '{line}' and the prompt; console ended "
                                 f"with:\n{self.raw[max(start, len(self.raw) - 600):]}")
            self._pump()

    def close(self):
        try:
            os.killpg(self.proc.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        self.console_log.close()


class Runner:
    """Counts checks and prints one line per check and the closing summary."""

    def __init__(self):
        self.passed = self.failed = 0
        self.times = []

    def check(self, name, fn):
        try:
            fn()
        except (StepFailed, AssertionError) as e:
            self.failed += 1
            print(f"FAIL {name}: {e}", flush=True)
            return False
        self.passed += 1
        print(f"ok   {name}", flush=True)
        return True

    def fail(self, name, why):
        """Counts a failure that happened outside a check (a scenario that could not run)."""
        self.failed += 1
        print(f"FAIL {name}: {why}", flush=True)

    def summary(self):
        for name, secs in self.times:
            print(f"boot to prompt: {name} {secs:.1f} s")
        print(f"e2e: {self.passed} passed, {self.failed} failed", flush=True)
        return self.failed == 0


def config_iso(name, dts, modules=()):
    """An ISO that boots with the configuration `dts` (compiled and wrapped as the vendor's
    build does) loaded as the `tessera-config` module, overriding the built-in one, plus
    `modules` as make_iso takes them (e.g. a Linux guest's kernel and initramfs)."""
    import subprocess
    work = os.path.join(emulator.ROOT, "build", "e2e", name)
    os.makedirs(work, exist_ok=True)
    dtb, blob = os.path.join(work, name + ".dtb"), os.path.join(work, name + ".blob")
    subprocess.run(["dtc", "-I", "dts", "-O", "dtb", "-o", dtb, dts], check=True, capture_output=True)
    subprocess.run([os.path.join(emulator.ROOT, "build", "host", "tools", "tessera-config"), "wrap", dtb, blob],
                   check=True, capture_output=True)
    return make_iso(name, [(blob, "tessera-config")] + list(modules))


def make_iso(name, modules):
    """Builds a variant of build/tessera.iso whose GRUB entry also loads `modules`, a list of
    (file path, module2 tag) or (file path, module2 tag, True) for a file GRUB must hand over
    as it is (--nounzip: a gzip initramfs the guest kernel unpacks itself).  Returns the new
    ISO's path."""
    import shutil
    import subprocess
    root = emulator.ROOT
    work = os.path.join(root, "build", "e2e", name)
    tree = os.path.join(work, "iso")
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(os.path.join(root, "build", "iso"), tree)
    lines = []
    for i, (path, tag, *raw) in enumerate(modules):
        dst = f"/boot/mod{i}"
        shutil.copy(path, tree + dst)
        lines.append(f"    module2 {'--nounzip ' if raw and raw[0] else ''}{dst} {tag}")
    with open(os.path.join(tree, "boot", "grub", "grub.cfg")) as f:    # the built one, with the guests
        cfg = f.read()
    cfg = re.sub(r"(\n\s*multiboot2 [^\n]*)", lambda m: m.group(1) + "\n" + "\n".join(lines), cfg, count=1)
    with open(os.path.join(tree, "boot", "grub", "grub.cfg"), "w") as f:
        f.write(cfg)
    iso = os.path.join(work, f"{name}.iso")
    subprocess.run(["grub-mkrescue", "-o", iso, tree], check=True, capture_output=True)
    return iso
