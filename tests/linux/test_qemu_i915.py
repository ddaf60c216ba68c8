"""The i915 guest's initrd, proven without Tessera: plain QEMU (TCG) boots Debian's kernel with
it on the command line of configs/kiosk-i915.dts.  QEMU has no Intel GPU, so i915 loads and binds
nothing; what is checked is everything up to the device: /init's two banner lines; every module
of i915's closure in the initramfs's modules.dep loaded, with no unresolved symbol and the kernel untainted (Debian's
signatures verified, no unsafe parameter); command-line parameters reaching insmod; debugfs;
each intel-gpu-tools program's libraries all found by the dynamic loader, and each program
running up to its "no GPU" report; i915-colorblt refusing cleanly without a render node.  Two
more boots check the refusals: on a machine without ACPI tables (Debian's wmi.ko then refuses to
load, so i915 cannot) and with tessera.i915=1 on an initramfs that has no i915 part."""
import gzip
import os
import re
import tempfile
import time

from test_qemu_boot import PROMPT, ROOT, Qemu, kiosk_cmdline

IGT_DIR = "/usr/libexec/igt-gpu-tools/benchmarks"
# Safe parameters (neither taints the kernel) that show the command line reaching insmod: one
# for i915, one for a module whose file name has dashes (i2c-algo-bit.ko).
PARAMS = "i915.error_capture=0 i2c_algo_bit.bit_test=1"
MEGS = 512     # the guest's RAM in configs/kiosk-i915.dts


def i915_cmdline(extra=""):
    return f"{kiosk_cmdline('kiosk-i915.dts')} {extra}".strip()


def boot(kernel, initrd, work, cmdline, qemu_args=()):
    return Qemu(kernel, initrd, work, cmdline, MEGS, qemu_args)


def keep_log(q, name):
    with open(os.path.join(ROOT, "build", name), "wb") as f:
        f.write(q.out)


def run_main(t, kernel, initrd, state):
    with tempfile.TemporaryDirectory() as work:
        q = boot(kernel, initrd, work, i915_cmdline(PARAMS))
        try:
            def banner(tt):
                q.expect(r"tessera-linux: Linux \S+ up", 180)
                m = q.expect(r"tessera-i915: ([^\r\n]*)\r?\n", 120)
                line = m.group(1)
                state["banner"] = line
                state["wall"] = time.monotonic() - q.started
                b = re.fullmatch(r"i915 loaded but bound no device \(no Intel GPU here; PCI display "
                                 r"devices: (.*)\); (\d+) modules loaded in ([0-9.]+) s", line)
                tt.expect(b is not None, f"i915 banner: {line!r}")
                if b:
                    tt.expect("1234:1111" in b.group(1), f"QEMU's VGA not named: {b.group(1)!r}")
                    state["modules"], state["load_s"] = int(b.group(2)), float(b.group(3))
                tt.expect(len(re.findall(r"tessera-i915:", q.text())) == 1,
                          "more than one i915 banner line")

            def modules(tt):
                q.expect(re.escape(PROMPT), 60)
                # A wide terminal: ash wraps the echo of a command longer than the width
                # (80 columns when the serial line has no size), which Qemu.command would keep.
                q.command("stty cols 250")
                dep = q.command("cat /lib/modules/$(uname -r)/modules.dep")

                def name(path):
                    return os.path.basename(path)[:-3].replace("-", "_")
                listed = {name(ln.split(":")[0]) for ln in dep.splitlines() if ln.strip()}
                # i915-init loads i915's line (the module and its closure); the touchscreen's
                # modules (uinput, evdev) are listed too, for display-kiosk to load later.
                line = next((ln for ln in dep.splitlines() if name(ln.split(":")[0]) == "i915"), "")
                names = {"i915"} | {name(d) for d in line.partition(":")[2].split()}
                state["names"] = names
                tt.expect(line and len(names) >= 10, f"modules.dep's i915 line: {line!r}")
                tt.expect(listed == names | {"uinput", "evdev"},
                          f"modules.dep lists {sorted(listed)}, i915's closure {sorted(names)}")
                tt.expect(state.get("modules") == len(names),
                          f"banner counts {state.get('modules')} modules, modules.dep {len(names)}")
                lsmod = q.command("cut -d' ' -f1 /proc/modules")
                loaded = set(lsmod.split())
                tt.expect(names <= loaded, f"not loaded: {sorted(names - loaded)}")
                bad = q.command("dmesg | grep -i -E 'unknown symbol|disagrees about|"
                                "verification failed|tainting'; echo end")
                tt.expect(bad == "end", f"dmesg: {bad!r}")
                taint = q.command("cat /proc/sys/kernel/tainted")
                tt.expect(taint == "0", f"the kernel is tainted ({taint})")
                drv = q.command("ls /sys/bus/pci/drivers/i915")
                tt.expect("bind" in drv and "0000:" not in drv, f"i915's driver folder: {drv!r}")

            def parameters(tt):
                log = q.command("cat /tmp/i915-init.log")
                tt.expect(re.search(r"^insmod kernel/drivers/gpu/drm/i915/i915\.ko "
                                    r"error_capture=0: [0-9.]+ s$", log, re.M) is not None,
                          f"i915-init.log: {log!r}")
                tt.expect(re.search(r"^insmod \S+/i2c-algo-bit\.ko bit_test=1: ", log, re.M)
                          is not None, f"i2c-algo-bit's parameter missing: {log!r}")
                got = q.command("cat /sys/module/i915/parameters/error_capture "
                                "/sys/module/i2c_algo_bit/parameters/bit_test "
                                "/sys/module/i915/parameters/enable_hangcheck")
                tt.expect(got.split() == ["N", "1", "Y"], f"module parameters: {got!r}")
                mounts = q.command("grep ' /sys/kernel/debug ' /proc/mounts")
                tt.expect(mounts.startswith("debugfs /sys/kernel/debug debugfs"),
                          f"debugfs: {mounts!r}")

            def libraries(tt):
                progs = q.command(f"ls {IGT_DIR}/* /usr/bin/lsgpu").split()
                tt.expect(len(progs) >= 4 and f"{IGT_DIR}/gem_exec_nop" in progs and
                          f"{IGT_DIR}/gem_blt" in progs and
                          f"{IGT_DIR}/intel_upload_blit_small" in progs,
                          f"intel-gpu-tools programs: {progs}")
                for p in progs:
                    out = q.command(f"/lib64/ld-linux-x86-64.so.2 --list {p}; echo rc=$?")
                    tt.expect("not found" not in out and "libigt.so.0 =>" in out and
                              out.endswith("rc=0"), f"{p}: ld.so --list says {out!r}")
                state["programs"] = len(progs)

            def programs(tt):
                for p in q.command(f"ls {IGT_DIR}/*").split():
                    out = q.command(f"{p}; echo rc=$?")
                    # IGT's drm_open_driver() without an Intel GPU: a skip (exit 77).
                    tt.expect("No known gpu found for chipset flags 0x1 (intel)" in out and
                              out.endswith("rc=77"), f"{p}: {out!r}")
                out = q.command("lsgpu; echo rc=$?")
                tt.expect(out == "No GPU devices found\nrc=0", f"lsgpu: {out!r}")
                out = q.command("lsgpu --help; echo rc=$?")
                tt.expect(out.startswith("usage: lsgpu") and out.endswith("rc=0"),
                          f"lsgpu --help: {out!r}")

            def colorblt(tt):
                out = q.command("i915-colorblt; echo rc=$?")
                tt.expect(out == "i915-colorblt: FAIL: /dev/dri/renderD128: No such file or "
                          "directory (no render node: is i915 bound to a GPU? `dmesg | grep i915`,"
                          " `ls /dev/dri`)\nrc=1", f"i915-colorblt: {out!r}")
                out = q.command("i915-colorblt -d /dev/fb0; echo rc=$?")
                tt.expect(out.startswith("i915-colorblt: FAIL: /dev/fb0: DRM_IOCTL_VERSION: ") and
                          out.endswith("(not a DRM device?)\nrc=1"), f"-d /dev/fb0: {out!r}")
                out = q.command("i915-colorblt -s 1x1; echo rc=$?")
                tt.expect("-s: expected WxH" in out and out.endswith("rc=2"), f"-s 1x1: {out!r}")

            def modprobe(tt):
                # Another reader of the same modules.dep: busybox's modprobe unloads the whole
                # closure with i915 and loads it back.
                names = state.get("names", {"i915"})
                out = q.command("modprobe -r i915; echo rc=$?; cat /proc/modules")
                tt.expect(out == "rc=0", f"modprobe -r i915 left: {out!r}")
                q.command("modprobe i915; echo rc=$?")
                loaded = set(q.command("cut -d' ' -f1 /proc/modules").split())
                tt.expect(loaded == names, f"modprobe i915 loaded {sorted(loaded)}, its closure in "
                          f"modules.dep is {sorted(names)}")

            t.check("QEMU i915: /init's banner, then i915-init's: loaded, bound no device",
                    banner)
            t.check("QEMU i915: every module of i915's closure in modules.dep loaded (uinput and evdev "
                    "listed, for later), no unknown symbol, untainted",
                    modules)
            t.check("QEMU i915: command-line parameters reach insmod; debugfs mounted", parameters)
            t.check("QEMU i915: ld.so finds every library of every intel-gpu-tools program",
                    libraries)
            t.check("QEMU i915: the benchmarks and lsgpu run up to 'no GPU'", programs)
            t.check("QEMU i915: i915-colorblt refuses cleanly without a render node", colorblt)
            t.check("QEMU i915: busybox modprobe unloads and reloads i915 from modules.dep",
                    modprobe)

            def touchscreen(tt):
                # Weston's seat (display-kiosk): uinput and evdev loaded, udevd started, the
                # virtual touchscreen tagged for libinput; stopped and made again, which a stale
                # udev control socket would break.
                for round in (1, 2):
                    out = q.command("display-kiosk touch", 120)
                    tt.expect(re.search(r"display-kiosk: touchscreen /sys/devices/virtual/input/input\d+ "
                                        r"\(1024x768\), udev: ID_INPUT_TOUCHSCREEN=1$", out),
                              f"round {round}: {out!r}")
                    devices = q.command("cat /proc/bus/input/devices")
                    tt.expect("Tessera virtual touchscreen" in devices, f"round {round}: {devices!r}")
                    out = q.command("display-kiosk stop", 120)
                    tt.expect(out.endswith("display-kiosk: stopped"), f"round {round} stop: {out!r}")
                    tt.expect("Tessera" not in q.command("cat /proc/bus/input/devices"),
                              f"round {round}: the touchscreen outlived stop")
            t.check("QEMU i915: display-kiosk's touchscreen for Weston's seat (uinput, evdev, udevd "
                    "tagging it a touchscreen), twice, and gone after stop", touchscreen)
        finally:
            q.close()
            keep_log(q, "linux-test-i915-serial.log")


def run_refusals(t, kernel, base_initrd, initrd):
    def no_acpi(tt):
        # A machine without ACPI tables, as Tessera's guests are today, with the command line
        # of kiosk-i915.dts: the kernel finds no RSDP and turns ACPI off itself.
        with tempfile.TemporaryDirectory() as work:
            q = boot(kernel, initrd, work, i915_cmdline(), ("-machine", "pc,acpi=off"))
            try:
                q.expect(r"A valid RSDP was not found", 120)
                m = q.expect(r"tessera-i915: ([^\r\n]*)\r?\n", 240)
                tt.expect(m.group(1).startswith(
                    "i915 not loaded: insmod wmi failed (No such device): ACPI is off") and
                    re.search(r"; \d+ of \d+ modules loaded$", m.group(1)) is not None,
                    f"banner without ACPI: {m.group(1)!r}")
                q.expect(re.escape(PROMPT), 60)
                lsmod = q.command("cut -d' ' -f1 /proc/modules")
                tt.expect("i915" not in lsmod.split(), f"i915 loaded without ACPI: {lsmod!r}")
            finally:
                q.close()
                keep_log(q, "linux-test-i915-no-acpi.log")

    def no_part(tt):
        with tempfile.TemporaryDirectory() as work:
            q = boot(kernel, base_initrd, work, i915_cmdline())
            try:
                m = q.expect(r"tessera-i915: ([^\r\n]*)\r?\n", 240)
                tt.expect(m.group(1).startswith("i915 not loaded: tessera.i915=1, but this "
                                                "initramfs has no i915 part"),
                          f"banner without the i915 part: {m.group(1)!r}")
                q.expect(re.escape(PROMPT), 60)
            finally:
                q.close()

    t.check("QEMU i915: without ACPI tables the banner says wmi (so i915) cannot load, shell up",
            no_acpi)
    t.check("QEMU i915: tessera.i915=1 on an initramfs without the i915 part says so", no_part)


def run_all(t, kernel, base_initrd, initrd):
    state = {}
    run_main(t, kernel, initrd, state)
    run_refusals(t, kernel, base_initrd, initrd)
    with open(initrd, "rb") as f:
        data = f.read()
    plain = len(gzip.decompress(data))     # both gzip members: the base and the i915 part
    if "load_s" in state:
        print(f"linux-test: i915 guest in QEMU TCG: {state['modules']} modules loaded in "
              f"{state['load_s']:.2f} s, i915 banner {state['wall']:.1f} s after start; initrd "
              f"{len(data)} bytes gzip, {plain} as cpio; {state.get('programs', '?')} "
              f"intel-gpu-tools programs")
