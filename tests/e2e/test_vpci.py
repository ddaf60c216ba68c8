"""Virtual PCI (docs/vpci.md) under Bochs: a pci-probe guest scans bus 0 through 0xCF8/0xCFC
and finds the host bridge and the vGPU at 00:02.0 with Gen9 ids, sizes BAR0 (16 MiB at
0xF0000000) and BAR2 (the aperture window at 0xE0000000, as large as the whole aperture), reads GMCH control as i915 would, moves BAR2 (the hypervisor hears of it) and
back, and exits with status 0."""
import os
import re
import subprocess

from harness import Session, make_iso
from test_guests import console

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build")
APERTURE = 256 << 20        # the appliance's aperture (default 256 MiB in configs/vpci.dts)


def config_blob():
    dtb, blob = os.path.join(BUILD, "e2e", "vpci.dtb"), os.path.join(BUILD, "e2e", "vpci.blob")
    os.makedirs(os.path.dirname(dtb), exist_ok=True)
    subprocess.run(["dtc", "-I", "dts", "-O", "dtb", "-o", dtb,
                    os.path.join(ROOT, "tests", "e2e", "configs", "vpci.dts")], check=True, capture_output=True)
    subprocess.run([os.path.join(BUILD, "host", "tools", "tessera-config"), "wrap", dtb, blob],
                   check=True, capture_output=True)
    return blob


def run(r, iso):
    s = Session("bochs", make_iso("vpci", [(config_blob(), "tessera-config")]), "bochs-vpci",
                boot_timeout=180)
    try:
        r.check("vpci: the probe guest exits with status 0",
                lambda: s.expect(r"guest 0 \(probe\): exited: exited with status 0", 180))
        s.wait_prompt(60)
        text = console(s, "probe", 0.2)
        lines = [l for l in text.splitlines() if l.startswith("pci-probe:")]
        for l in lines:
            print(f"  {l}")

        def functions():
            found = re.findall(r"^pci-probe: (00:[0-9a-f]{2}\.\d) ([0-9a-f]{4}:[0-9a-f]{4}) class ([0-9a-f]{6})$",
                               text, re.M)
            assert found == [("00:00.0", "8086:1918", "060000"), ("00:02.0", "8086:1912", "030000")], found
            assert "pci-probe: vgpu rev 0x06 subsys 8086:2212 irq pin 1" in text, text
            assert "pci-probe: done, 2 functions\n" in text, text
        r.check("vpci: bus 0 holds the host bridge and the vGPU, nothing else", functions)

        def lanes():
            # 0xCFE/0xCFF bytes give the device id, a word at 0xCFE the class, a word at 0xCFF
            # is half past the window (0xff); a write to the vendor id is ignored.
            assert "pci-probe: bytes 0x1912 words 0x0300 past-window 0xff19" in text, text
            assert "pci-probe: vendor after write 0x8086" in text, text
        r.check("vpci: byte and word accesses at odd lanes; read-only ids", lanes)

        def bars():
            assert "pci-probe: BAR0 0xf0000000 size 0x1000000 mem64\n" in text, text
            assert f"pci-probe: BAR2 0xe0000000 size {APERTURE:#x} mem64 prefetchable\n" in text, text
            assert "pci-probe: BAR4 io 0xf000 size 0x40\n" in text, text
        r.check("vpci: BAR0 16 MiB at 0xf0000000, BAR2 aperture at 0xe0000000, BAR4 64 ports", bars)

        def gmch():
            assert "pci-probe: gmch 0x00c0 ggtt 8 MiB stolen 0 MiB bdsm 0x00000000" in text, text
        r.check("vpci: GMCH control says an 8 MiB GGTT and no stolen memory", gmch)

        def moved():
            assert "pci-probe: BAR2 moved to 0xd0000000 and back to 0xe0000000" in text, text
            log = s.command("log", keep_log=True)
            assert re.search(r"guest 0 \(probe\): PCI 00:02\.0 BAR2 at 0xd0000000 \(memory, 0x10000000 bytes\)", log), log[-1500:]
        r.check("vpci: moving BAR2 reaches the hypervisor's BAR callback", moved)
    finally:
        s.close()
