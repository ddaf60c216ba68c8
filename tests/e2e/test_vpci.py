"""Virtual PCI (docs/vpci.md) under Bochs: a pci-probe guest scans bus 0 through 0xCF8/0xCFC
and finds the host bridge and the vGPU at 00:02.0 with Gen9 ids, sizes BAR0 (16 MiB at
0xF0000000) and BAR2 (the aperture window at 0xE0000000, as large as the whole aperture), reads GMCH control as i915 would, moves BAR2 (the hypervisor hears of it) and
back, and exits with status 0.  A second one (`storm`) then moves BAR2 200 times around its
guest-physical space with aperture pages mapped, some of the moves to places the hypervisor
refuses: the hypervisor's free pages are where they were at the end of its life, and again after
a restart."""
import os
import re
import subprocess

import time

from harness import Session, StepFailed, make_iso
from test_guests import console, vms_table

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

        def lives():
            """The storm guest's lives in `mem`: (start, end) free pages of each guest's last life."""
            out = s.command("mem")
            m = re.search(r"^\s+1 storm\s+life (\d+): (\d+) after its start, (\d+) at its end \(([+-]\d+)\)$", out, re.M)
            assert m, out
            return int(m.group(1)), int(m.group(2)), int(m.group(3)), out

        def wait_exited(timeout):
            """The storm guest's end, from `vms` (its log lines are rate-limited: a storm of BAR
            moves uses its share, and the line saying it exited may be one of those dropped)."""
            deadline = time.monotonic() + timeout
            while True:
                out, rows = vms_table(s)
                if rows.get(1, ("", ""))[1] != "running":
                    assert re.search(r"^\s*1 storm\s+exited .*\n\s+exited with status 0$", out, re.M), out
                    return
                if time.monotonic() > deadline:
                    raise StepFailed(f"the storm guest still runs after {timeout} s:\n{out}")
                time.sleep(2)

        first = {}

        def storm():
            wait_exited(300)
            text = console(s, "storm", 0.2)
            m = re.search(r"pci-probe: storm: 200 BAR2 moves \((\d+) to refused places\), (\d+) aperture pages, "
                          r"(\d+) read back", text)
            assert m and int(m.group(2)) > 0 and m.group(2) == m.group(3), text[-800:]
            print(f"  {m.group(0)}")
            life, start, end, out = lives()
            print(f"  storm: life {life}: {start} free pages after its start, {end} at its end")
            assert life == 1 and start == end, f"the storm's life took {start - end} pages:\n{out}"
            first["start"], first["end"] = start, end
        r.check("vpci: 200 BAR2 moves with aperture pages mapped leave the hypervisor's free pages where they "
                "were, and the pages read back through the aperture at home", storm)

        def refused():
            out = s.command("devices storm")
            m = re.search(r"window 0x1000000-0x[0-9a-f]+: (\d+) placements, (\d+) refused", out)
            assert m and int(m.group(2)) >= 25, out
            assert re.search(r"vgpu-bar2 \(PCI 00:02\.0 BAR2\)", out), out
            log = s.command("log", keep_log=True)
            assert re.search(r"guest 1 \(storm\): PCI 00:02\.0 BAR2 at 0xf0000000 refused: it overlaps", log), log[-2000:]
            assert re.search(r"guest 1 \(storm\): PCI 00:02\.0 BAR2 at 0x[0-9a-f]+\+0x10000000 refused: outside its "
                             r"MMIO window", log), log[-2000:]
        r.check("vpci: a BAR placed over another device or beyond the guest's addresses is refused with a log line",
                refused)

        def restart():
            assert first, "the storm's first life was not measured"
            out = s.command("vm start storm")
            assert "guest 1 (storm): running" in out, out
            wait_exited(300)
            life, start, end, out = lives()
            print(f"  storm: life {life}: {start} free pages after its start, {end} at its end")
            assert life == 2 and (start, end) == (first["start"], first["end"]), out
        r.check("vpci: a restarted storm guest starts and ends with the free pages of its first life", restart)
    finally:
        s.close()
