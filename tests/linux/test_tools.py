"""The initramfs tools, checked against independent readers: tools/gen-initramfs's archives are
listed and unpacked by GNU cpio (not by anything of ours), its refusals name the manifest line and
leave no output; tools/make-splash writes a valid, deterministic PPM; fbpicture (built by
mk/linux.mk) refuses what is not a picture or not a framebuffer with one line."""
import gzip
import os
import re
import stat
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "tools", "gen-initramfs")
SPLASH = os.path.join(ROOT, "tools", "make-splash")


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def sample_tree(work):
    """A manifest with every entry kind, and the files it names."""
    os.makedirs(os.path.join(work, "src"), exist_ok=True)
    files = {"init": b"#!/bin/sh\necho hello\n", "odd": bytes(range(256)) * 3 + b"x",
             "empty": b""}
    for name, data in files.items():
        with open(os.path.join(work, "src", name), "wb") as f:
            f.write(data)
    manifest = os.path.join(work, "list")
    with open(manifest, "w") as f:
        f.write("""# test manifest
dir   /bin          0755 0 0
dir   /dev          0755 0 0
dir   /tmp          1777 0 0
nod   /dev/console  0600 0 0 c 5 1
nod   /dev/sda      0660 0 6 b 8 0
file  /init         ${SRC}/init 0755 0 0
file  /bin/odd      $SRC/odd   0644 1000 1000   # trailing comment
file  /bin/empty    ${SRC}/empty 0600 0 0
slink /bin/sh       /bin/busybox 0777 0 0
""")
    return manifest, files


def listing(archive):
    """GNU cpio's verbose listing: {name: (mode string, owner, group, size-or-device, target)}."""
    r = subprocess.run(["cpio", "-t", "-v", "--quiet", "-n"], input=archive, capture_output=True)
    if r.returncode != 0:
        raise AssertionError(f"cpio -t failed: {r.stderr.decode()}")
    out = {}
    for line in r.stdout.decode().splitlines():
        m = re.match(r"(\S+)\s+\d+\s+(\d+)\s+(\d+)\s+(\d+,\s*\d+|\d+)\s+\S+\s+\d+\s+\d+\s+(\S+)"
                     r"(?: -> (\S+))?$", line)
        if not m:
            raise AssertionError(f"unexpected cpio line: {line!r}")
        out[m.group(5)] = (m.group(1), m.group(2), m.group(3), re.sub(r"\s", "", m.group(4)),
                           m.group(6))
    return out


def check_round_trip(t):
    with tempfile.TemporaryDirectory() as work:
        manifest, files = sample_tree(work)
        env = dict(os.environ, SRC=os.path.join(work, "src"))
        for compress in (False, True):
            out = os.path.join(work, "a.cpio" + (".gz" if compress else ""))
            r = run([GEN] + (["-z"] if compress else []) + ["-o", out, manifest], env=env)
            t.expect(r.returncode == 0, f"gen-initramfs failed: {r.stderr}")
            with open(out, "rb") as f:
                data = f.read()
            if compress:
                t.expect(data[:2] == b"\x1f\x8b", "-z output is not gzip")
                data = gzip.decompress(data)
            t.expect(data[:6] == b"070701", "not a newc archive (magic 070701)")
            ls = listing(data)
            want = {
                "bin": ("drwxr-xr-x", "0", "0", None, None),
                "dev": ("drwxr-xr-x", "0", "0", None, None),
                "tmp": ("drwxrwxrwt", "0", "0", None, None),
                "dev/console": ("crw-------", "0", "0", "5,1", None),
                "dev/sda": ("brw-rw----", "0", "6", "8,0", None),
                "init": ("-rwxr-xr-x", "0", "0", str(len(files["init"])), None),
                "bin/odd": ("-rw-r--r--", "1000", "1000", str(len(files["odd"])), None),
                "bin/empty": ("-rw-------", "0", "0", "0", None),
                "bin/sh": ("lrwxrwxrwx", "0", "0", None, "/bin/busybox"),
            }
            t.expect(sorted(ls) == sorted(want), f"cpio lists {sorted(ls)}")
            for name, (mode, uid, gid, size, target) in want.items():
                got = ls.get(name)
                if got is None:
                    continue
                t.expect(got[:3] == (mode, uid, gid), f"{name}: cpio says {got[:3]}, want "
                         f"{(mode, uid, gid)}")
                if size is not None:
                    t.expect(got[3] == size, f"{name}: size/device {got[3]}, want {size}")
                if target is not None:
                    t.expect(got[4] == target, f"{name}: link to {got[4]}, want {target}")
            # Unpack everything but the device nodes (creating those needs root) with GNU cpio
            # and compare the bytes.
            dest = os.path.join(work, "x" + str(compress))
            os.makedirs(dest)
            r = subprocess.run(["cpio", "-i", "-d", "--quiet", "--no-absolute-filenames", "-f",
                                "dev/console", "dev/sda"], input=data, cwd=dest,
                               capture_output=True)
            t.expect(r.returncode == 0, f"cpio -i failed: {r.stderr.decode()}")
            for name, content in (("init", files["init"]), ("bin/odd", files["odd"]),
                                  ("bin/empty", files["empty"])):
                with open(os.path.join(dest, name), "rb") as f:
                    t.expect(f.read() == content, f"{name}: unpacked bytes differ")
            t.expect(os.readlink(os.path.join(dest, "bin/sh")) == "/bin/busybox",
                     "bin/sh: wrong link target after unpacking")
            t.expect(stat.S_IMODE(os.stat(os.path.join(dest, "init")).st_mode) == 0o755,
                     "init: mode not kept")


def check_reproducible(t):
    with tempfile.TemporaryDirectory() as work:
        manifest, _ = sample_tree(work)
        env = dict(os.environ, SRC=os.path.join(work, "src"))
        outs = []
        for i in range(2):
            out = os.path.join(work, f"r{i}.gz")
            run([GEN, "-z", "-o", out, manifest], env=env)
            with open(out, "rb") as f:
                outs.append(f.read())
        t.expect(outs[0] == outs[1] and outs[0], "two runs give different archives")


REFUSALS = [
    ("dir /a/b 0755 0 0\n", "its folder '/a' is not listed before it"),
    ("dir /a 0755 0 0\ndir /a 0755 0 0\n", "'/a' is listed twice"),
    ("dir /a 0855 0 0\n", "mode '0855': expected octal"),
    ("dir a 0755 0 0\n", "expected a normalised absolute path"),
    ("dir /a/../b 0755 0 0\n", "expected a normalised absolute path"),
    ("file /x /nonexistent/file 0644 0 0\n", "/nonexistent/file: No such file"),
    ("file /x ${UNSET_VARIABLE_FOR_TEST}/f 0644 0 0\n", "a variable is not set"),
    ("nod /c 0600 0 0 x 5 1\n", "device type 'x'"),
    ("slink /s /t 0777 0\n", "'slink' takes 5 fields, got 4"),
    ("pipe /p 0644 0 0\n", "unknown entry 'pipe'"),
]


def check_refusals(t):
    with tempfile.TemporaryDirectory() as work:
        for text, message in REFUSALS:
            manifest = os.path.join(work, "bad")
            with open(manifest, "w") as f:
                f.write("# a bad manifest\n" + text)
            out = os.path.join(work, "out.cpio")
            env = {k: v for k, v in os.environ.items() if k != "UNSET_VARIABLE_FOR_TEST"}
            r = run([GEN, "-o", out, manifest], env=env)
            t.expect(r.returncode != 0, f"accepted: {text!r}")
            t.expect(message in r.stderr and f"{manifest}:" in r.stderr,
                     f"{text!r}: message {r.stderr.strip()!r} lacks {message!r} or the line")
            t.expect(not os.path.exists(out) and not os.path.exists(out + ".tmp"),
                     f"{text!r}: left an output behind")


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+255\s", data)
    if not m:
        raise AssertionError(f"{path}: not a P6 PPM with maxval 255")
    w, h = int(m.group(1)), int(m.group(2))
    pixels = data[m.end():]
    if len(pixels) != w * h * 3:
        raise AssertionError(f"{path}: {len(pixels)} pixel bytes, want {w * h * 3}")
    return w, h, pixels


def check_splash(t):
    with tempfile.TemporaryDirectory() as work:
        a, b = os.path.join(work, "a.ppm"), os.path.join(work, "b.ppm")
        for path in (a, b):
            r = run([SPLASH, "512x384", path])
            t.expect(r.returncode == 0, f"make-splash failed: {r.stderr}")
        w, h, px = read_ppm(a)
        t.expect((w, h) == (512, 384), f"size {w}x{h}")
        with open(a, "rb") as fa, open(b, "rb") as fb:
            t.expect(fa.read() == fb.read(), "make-splash is not deterministic")
        colours = {px[i:i + 3] for i in range(0, len(px), 3)}
        t.expect(len(colours) >= 8, f"only {len(colours)} colours: not a picture")
        r = run([SPLASH, "10x10", a])
        t.expect(r.returncode != 0 and "64..8192" in r.stderr, "a 10x10 picture was accepted")


def check_fbpicture(t, fbpicture):
    """The refusals that need no framebuffer (drawing is checked by the QEMU boot)."""
    with tempfile.TemporaryDirectory() as work:
        notppm = os.path.join(work, "x.ppm")
        with open(notppm, "wb") as f:
            f.write(b"P3\n1 1\n255\n0 0 0\n")
        short = os.path.join(work, "short.ppm")
        with open(short, "wb") as f:
            f.write(b"P6\n4 4\n255\n" + b"\0" * 10)
        good = os.path.join(work, "good.ppm")
        with open(good, "wb") as f:
            f.write(b"P6\n# made by a test\n2 1\n255\n" + b"\xff\0\0\0\xff\0")
        cases = [
            ([], 1, "no picture: usage: fbpicture PICTURE.ppm [/dev/fbN]"),
            ([os.path.join(work, "none.ppm")], 1, "no such file or directory"),
            ([notppm], 1, "not a binary PPM (P6)"),
            ([short], 1, "PPM truncated"),
            ([good, "/dev/null"], 1, "no picture: /dev/null: not a framebuffer"),
        ]
        for args, rc, text in cases:
            r = run([fbpicture] + args)
            t.expect(r.returncode == rc and text in r.stdout and r.stdout.count("\n") == 1,
                     f"fbpicture {args}: rc {r.returncode}, said {r.stdout!r}, want {text!r}")


def run_all(t, fbpicture):
    t.check("gen-initramfs: GNU cpio lists and unpacks what it writes (plain and gzip)",
            check_round_trip)
    t.check("gen-initramfs: the same manifest gives the same bytes", check_reproducible)
    t.check("gen-initramfs: bad manifests are refused with file:line, no output left",
            check_refusals)
    t.check("make-splash: a deterministic 512x384 P6 picture", check_splash)
    t.check("fbpicture: refuses bad pictures and non-framebuffers with one line",
            lambda tt: check_fbpicture(tt, fbpicture))
