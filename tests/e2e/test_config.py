"""The vendor configuration at boot: a GRUB module tagged tessera-config overrides the built-in
blob; a corrupted one is refused with the reason, guests are not started, and the shell still
answers `config`."""
import os
import subprocess

from harness import Session, StepFailed, make_iso

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build")
TOOL = os.path.join(BUILD, "host", "tools", "tessera-config")


def blob_for(dts, out):
    dtb = out + ".dtb"
    subprocess.run(["dtc", "-I", "dts", "-O", "dtb", "-o", dtb, dts], check=True, capture_output=True)
    subprocess.run([TOOL, "wrap", dtb, out], check=True, capture_output=True)
    return out


def run(r, iso):
    work = os.path.join(BUILD, "e2e")
    os.makedirs(work, exist_ok=True)

    # A blob whose DTB has one flipped byte: the CRC over the DTB no longer matches.
    with open(os.path.join(BUILD, "config.blob"), "rb") as f:
        blob = bytearray(f.read())
    blob[len(blob) // 2] ^= 0x5A
    bad = os.path.join(work, "corrupt.blob")
    with open(bad, "wb") as f:
        f.write(blob)

    s = None
    try:
        s = Session("qemu", make_iso("config-corrupt", [(bad, "tessera-config")]), "config-corrupt")
        s.wait_prompt(90)
        r.check("config: a corrupted module is refused with the reason", lambda: s.expect(
            r"config \(module tessera-config at 0x[0-9a-f]+, \d+ bytes\) refused: .*CRC", 2))
        r.check("config: guests are not started with a refused configuration", lambda: s.expect(
            r"guests not started: the configuration is not valid", 2))

        def shell_says_why():
            out = s.command("config")
            assert "REFUSED" in out and "CRC" in out, out
        r.check("config: the shell answers `config` with the reason", shell_says_why)
    except StepFailed as e:
        r.check("config: corrupted module boot", lambda: (_ for _ in ()).throw(e))
    finally:
        if s:
            s.close()

    s = None
    try:
        good = blob_for(os.path.join(ROOT, "configs", "kiosk15.dts"), os.path.join(work, "kiosk15.blob"))
        s = Session("qemu", make_iso("config-module", [(good, "tessera-config")]), "config-module")
        s.wait_prompt(90)

        def module_overrides():
            out = s.command("config")
            assert "config (module tessera-config" in out, out
            assert "15 guests" in out, out
            assert out.count("\nguest ") + out.startswith("guest ") == 15, out
        r.check("config: a tessera-config module overrides the built-in blob", module_overrides)
    except StepFailed as e:
        r.check("config: module override boot", lambda: (_ for _ in ()).throw(e))
    finally:
        if s:
            s.close()
