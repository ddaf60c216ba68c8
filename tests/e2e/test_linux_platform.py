"""The platform a Linux guest gets (docs/linux-guest.md), driven under Bochs with tiny bzImages
(tests/e2e/tiny_bzimage.py) so it takes a minute, not a kernel boot: bad images are refused with
one line naming the cause; port 0xCF9 and the keyboard controller restart only that guest;
unclaimed MMIO reads all ones and ignores writes; HLT with interrupts off ends the guest
(powered off in the kernel's half, "boot code halted" below it); a triple fault stops it; the
framebuffer is on the wall; a Tessera guest beside them keeps running.  Needs the `kernel`
and `initrd` guest properties (docs/config.md)."""
import os
import re
import subprocess
import time

import tiny_bzimage as tb
from harness import Session, StepFailed, make_iso
from test_guests import console, vms_table

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = os.path.join(ROOT, "build", "e2e", "linux-platform")
RAM_MIB = 128                   # each Linux guest's RAM: what a configuration may give one
MIB = 1 << 20
OFF_CODE, OFF_RIP = tb.high_half_halt(tb.say(b"off\n"))
# Two boots, each with a Tessera hello guest last.  name: (image bytes, initrd bytes or None)
RUNNING = {
    "reset": (tb.image(tb.say(b"reset\n") + tb.PAUSE + tb.RESET_CF9), None),
    "kbd": (tb.image(tb.say(b"kbd\n") + tb.PAUSE + tb.RESET_KBD), None),
    "mmio": (tb.image(tb.UNCLAIMED_RW + tb.say(b"\nmmio done\n") + tb.CLI_HLT), None),
    "off": (tb.image(OFF_CODE), None),
    "triple": (tb.image(tb.say(b"ud2\n") + tb.UD2), None),
    "msr": (tb.image(tb.SWAPGS_SYSCALL), None),
}
REFUSED_IMAGES = {
    "trunc": (tb.image(tb.CLI_HLT)[:0xC00], None),
    "old": (tb.image(tb.CLI_HLT, version=0x020B), None),
    "small": (tb.image(tb.CLI_HLT, init_size=200 * MIB), None),             # needs RAM to 216 MiB
    "bigrd": (tb.image(tb.CLI_HLT, init_size=100 * MIB), 20 * MIB),         # 12 MiB left above it
}
REFUSED = {
    "trunc": "image 'trunc': truncated: 3072 bytes, but the header says 2560 of setup and 4096 of kernel",
    "old": "image 'old': boot protocol 2.11 is older than 2.12 (no 64-bit entry)",
    "small": f"image 'small': the kernel needs RAM up to 216 MiB (loaded at 0x1000000, init_size 0xc800000), "
             f"the guest has {RAM_MIB} MiB",
    "bigrd": "initrd 'bigrd-rd': initrd of 20480 KiB does not fit: 12288 KiB free",
}


def build(tag, guests):
    """Writes the images and the configuration; returns the ISO."""
    work = os.path.join(WORK, tag)
    os.makedirs(work, exist_ok=True)
    mods, nodes = [], []
    for i, (name, (img, initrd)) in enumerate(list(guests.items()) + [("kiosk", (None, None))]):
        x, y = (i % 4) * 256, (i // 4) * 192
        lines = [f'image = "{name if img else "hello"}";', f"ram-mib = <{RAM_MIB if img else 32}>;",
                 "low-gm-mib = <16>;",
                 "high-gm-mib = <0>;", "weight = <100>;", f"tile-px = <{x} {y} 256 192>;", "console;",
                 "autostart;"]
        if img:
            lines.insert(0, 'kernel = "linux";')
            lines.append('cmdline = "console=ttyS0,115200n8 noapic pci=noacpi";')
            path = os.path.join(work, name + ".img")
            with open(path, "wb") as f:
                f.write(img)
            mods.append((path, name))
        if initrd:
            lines.append(f'initrd = "{name}-rd";')
            path = os.path.join(work, name + ".initrd")
            with open(path, "wb") as f:
                f.write(b"\0" * initrd)
            mods.append((path, name + "-rd"))
        nodes.append(f"\t\t{name} {{\n" + "".join(f"\t\t\t{line}\n" for line in lines) + "\t\t};")
    dts = os.path.join(work, tag + ".dts")
    with open(dts, "w") as f:
        f.write('/dts-v1/;\n/ {\n\tcompatible = "tessera,config-1";\n'
                '\tappliance { model = "Linux platform test"; ram-mib = <1536>; reserved-mib = <64>; '
                'aperture-mib = <256>; };\n\tgraphics { sharing = "all"; };\n'
                '\tdisplay { width-px = <1024>; height-px = <768>; };\n'
                '\tscheduler { policy = "fair"; slice-us = <6000>; };\n'
                "\tguests {\n" + "\n".join(nodes) + "\n\t};\n};\n")
    dtb, blob = dts[:-4] + ".dtb", dts[:-4] + ".blob"
    subprocess.run(["dtc", "-I", "dts", "-O", "dtb", "-o", dtb, dts], check=True, capture_output=True)
    tool = subprocess.run([os.path.join(ROOT, "build", "host", "tools", "tessera-config"), "wrap", dtb, blob],
                          capture_output=True, text=True)
    if tool.returncode != 0:
        raise StepFailed(f"the configuration with Linux guests is refused: {tool.stderr.strip()}")
    return make_iso(f"linux-platform-{tag}", [(blob, "tessera-config")] + mods)


def boot(r, tag, guests):
    """A session with these guests, or None (one failed check) if no configuration can say so."""
    try:
        iso = build(tag, guests)
    except StepFailed as e:
        def refused():
            raise e
        r.check("linux platform: a configuration can name Linux guests", refused)
        return None
    s = Session("bochs", iso, f"bochs-linux-{tag}", megs=1536, boot_timeout=180)
    s.wait_prompt(180)
    return s


def run(r, iso):
    s = boot(r, "refused", REFUSED_IMAGES)
    if not s:
        return
    try:
        def refusals():
            out = s.command("vms")
            for name, why in REFUSED.items():
                assert re.search(rf"^\s*\d+ {name}\s+failed", out, re.M), out
                assert why in out, f"{name}: expected '{why}' in\n{out}"
        r.check("linux platform: truncated, old-protocol, too-small and initrd-overrun images are refused "
                "with the cause", refusals)
    finally:
        s.close()

    s = boot(r, "running", RUNNING)
    if not s:
        return
    try:
        time.sleep(5)

        def resets():
            for name, how in (("reset", "port 0xCF9"), ("kbd", "the keyboard controller")):
                rx = rf"guest \d+ \({name}\): reset through {re.escape(how)}: restarting it"
                first = s.expect(rx, 60)
                s.expect(rx, 60, first.end())
            for name in ("reset", "kbd"):
                out = s.command(f"vm stop {name}")
                assert "stopped" in out, out
                text = console(s, name, 0.5)
                assert text.count(f"{name}\n") >= 2, text[-300:]
        r.check("linux platform: 0xCF9 and the keyboard controller's reset restart the guest", resets)

        def unclaimed():
            s.expect(r"guest \d+ \(mmio\): 4-byte read of unclaimed MMIO at 0xfed00000: reads all ones", 30)
            text = console(s, "mmio", 0.5)
            assert "\ufffd\nmmio done" in text, repr(text[-200:])        # AL = 0xFF, then it went on
            out, rows = vms_table(s)
            assert re.search(r"mmio\s+crashed", out) and "its boot code halted at RIP 0x10002" in out, out
        r.check("linux platform: unclaimed MMIO reads all ones; HLT before the kernel's half ends the guest",
                unclaimed)

        def power_off():
            out = s.command("vms")
            assert re.search(r"off\s+exited", out), out
            assert f"powered off (halted with interrupts off at RIP {OFF_RIP:#x})" in out, out
            assert "off\n" in console(s, "off", 0.5)
            out = s.command("vm start off")
            assert "running" in out or "started" in out or "exited" in out, out
            s.expect(r"guest \d+ \(off\): exited: powered off", 30)
        r.check("linux platform: HLT with interrupts off in the kernel's half powers off; vm start runs it again",
                power_off)

        def triple():
            out = s.command("vms")
            assert re.search(r"triple\s+crashed", out) and "triple fault at RIP 0x10002" in out, out
        r.check("linux platform: a triple fault stops the guest with the reason", triple)

        def swapgs_and_syscall():
            s.expect(r"guest \d+ \(msr\): crashed: its boot code halted", 120)
            text = console(s, "msr", 0.5)
            assert "gs ok\nsyscall ok\n" in text, repr(text[-200:])
        r.check("linux platform: KERNEL_GS_BASE and the SYSCALL MSRs are the guest's across time slices",
                swapgs_and_syscall)

        def framebuffer_and_others():
            assert re.search(r"display: reset: 256x192 picture on tile 0,0 256x192", s.raw), s.raw[-2000:]
            _, before = vms_table(s)
            time.sleep(3)
            out, after = vms_table(s)
            kiosk = max(after)
            assert after[kiosk][0] == "kiosk" and after[kiosk][1] == "running", out
            assert after[kiosk][2] > before[kiosk][2], out
            assert "hello from guest" in console(s, "kiosk", 0.5)
        r.check("linux platform: the framebuffer is a picture on the wall; the Tessera guest keeps running",
                framebuffer_and_others)
    finally:
        s.close()
