"""The i915 guest's build tools on small inputs made here, checked against independent readers:
tools/kmod-closure on a .deb that dpkg-deb builds from ELF objects gcc compiles with .modinfo
sections (closure, load order, modules.dep, refusals); tools/elf-closure on a tree of shared
libraries gcc links (DT_NEEDED, $ORIGIN run paths, symbolic links, the loader, a missing
library); tools/tree-manifest's listing written by gen-initramfs and read back by GNU cpio."""
import os
import shutil
import subprocess
import tempfile

from test_tools import listing, run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KMOD = os.path.join(ROOT, "tools", "kmod-closure")
ELF = os.path.join(ROOT, "tools", "elf-closure")
TREE = os.path.join(ROOT, "tools", "tree-manifest")
GEN = os.path.join(ROOT, "tools", "gen-initramfs")
ABI = "6.1.0-99-test"


def module_object(path, name, depends, vermagic=f"{ABI} SMP mod_unload", softdep=None):
    """An ELF64 relocatable object whose .modinfo section says what a module's does."""
    fields = [f"name={name}", f"depends={','.join(depends)}", f"vermagic={vermagic}"]
    if softdep:
        fields.append(f"softdep={softdep}")
    src = path + ".c"
    with open(src, "w") as f:
        for i, field in enumerate(fields):
            f.write(f'static const char f{i}[] __attribute__((section(".modinfo"), used, '
                    f'aligned(1))) = "{field}";\n')
    r = run(["gcc", "-c", "-o", path, src])
    os.remove(src)
    if r.returncode != 0:
        raise AssertionError(f"gcc: {r.stderr}")


def kernel_deb(work, modules):
    """A linux-image-like .deb: {relative path under kernel/: (name, depends, extra kwargs)}."""
    pkg = os.path.join(work, "pkg")
    top = os.path.join(pkg, "lib", "modules", ABI)
    for rel, (name, depends, kw) in modules.items():
        path = os.path.join(top, "kernel", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        module_object(path, name, depends, **kw)
    os.makedirs(os.path.join(pkg, "boot"))
    with open(os.path.join(pkg, "boot", f"vmlinuz-{ABI}"), "w") as f:
        f.write("not a kernel\n")
    os.makedirs(os.path.join(pkg, "DEBIAN"))
    with open(os.path.join(pkg, "DEBIAN", "control"), "w") as f:
        f.write(f"Package: linux-image-{ABI}\nVersion: 1\nArchitecture: amd64\n"
                "Maintainer: test <t@example.org>\nDescription: test\n")
    deb = os.path.join(work, "k.deb")
    r = run(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", pkg, deb])
    if r.returncode != 0:
        raise AssertionError(f"dpkg-deb --build: {r.stderr}")
    shutil.rmtree(pkg)
    return deb


MODULES = {
    "gpu/top.ko": ("top", ["mid-a", "mid_b"], {}),
    "gpu/mid-a.ko": ("mid_a", ["base"], {}),
    "gpu/mid_b.ko": ("mid_b", ["base"], {"softdep": "pre: pre_x post: post_y"}),
    "core/base.ko": ("base", [], {}),
    "core/pre_x.ko": ("pre_x", [], {}),
    "other/unrelated.ko": ("unrelated", ["base"], {}),
}


def check_kmod_closure(t):
    with tempfile.TemporaryDirectory() as work:
        deb = kernel_deb(work, MODULES)
        out = os.path.join(work, "out")
        r = run([KMOD, deb, out, "top"])
        t.expect(r.returncode == 0, f"kmod-closure failed: {r.stderr}")
        top = os.path.join(out, "lib", "modules", ABI)
        got = sorted(os.path.relpath(os.path.join(d, f), top)
                     for d, _, fs in os.walk(top) for f in fs)
        want = sorted(["modules.dep", "kernel/gpu/top.ko", "kernel/gpu/mid-a.ko",
                       "kernel/gpu/mid_b.ko", "kernel/core/base.ko", "kernel/core/pre_x.ko"])
        t.expect(got == want, f"extracted {got}, want {want} (not unrelated.ko, not post_y)")
        with open(os.path.join(top, "modules.dep")) as f:
            dep = dict(line.rstrip("\n").split(":", 1) for line in f)
        t.expect(dep.get("kernel/core/base.ko") == "", f"base.ko's line: {dep}")
        deps = dep.get("kernel/gpu/top.ko", "").split()
        t.expect(sorted(deps) == sorted(["kernel/gpu/mid-a.ko", "kernel/gpu/mid_b.ko",
                                         "kernel/core/base.ko", "kernel/core/pre_x.ko"]),
                 f"top.ko's dependencies: {deps}")
        # Loaded from the end of the list to its start, each module comes after what it needs.
        order = list(reversed(deps))
        for mod, needs in (("mid-a", ["base"]), ("mid_b", ["base", "pre_x"])):
            at = order.index(f"kernel/gpu/{mod}.ko")
            for n in needs:
                t.expect(order.index(f"kernel/core/{n}.ko") < at,
                         f"{n} is not loaded before {mod}: {order}")
        t.expect("load order: " in r.stdout and r.stdout.rstrip().endswith(" top"),
                 f"summary: {r.stdout!r}")
        # The same file gcc wrote, byte for byte.
        with open(os.path.join(top, "kernel/core/base.ko"), "rb") as f:
            t.expect(f.read(4) == b"\x7fELF", "base.ko is not the ELF object")

        refusals = [
            ({"a.ko": ("a", ["missing"], {})}, ["a"], "module 'missing' (needed by a)"),
            ({"a.ko": ("a", [], {"vermagic": "5.10.0-1-amd64 SMP"})}, ["a"],
             f"is not the package's kernel {ABI}"),
            ({"a.ko": ("a", ["b"], {}), "b.ko": ("b", ["a"], {})}, ["a"], "dependency loop"),
            ({"a.ko": ("a", [], {})}, ["nosuch"], "module 'nosuch': the package ships no"),
        ]
        for i, (mods, wanted, message) in enumerate(refusals):
            sub = os.path.join(work, f"r{i}")
            os.makedirs(sub)
            d = kernel_deb(sub, mods)
            o = os.path.join(sub, "out")
            r = run([KMOD, d, o] + wanted)
            t.expect(r.returncode != 0 and message in r.stderr,
                     f"{mods} {wanted}: rc {r.returncode}, said {r.stderr.strip()!r}, "
                     f"want {message!r}")
            t.expect(not os.path.exists(os.path.join(o, "lib")), f"{mods}: left a module tree")


def shared_lib(path, soname, needs=(), rpath=None, src="int f(void) { return 1; }\n"):
    c = path + ".c"
    with open(c, "w") as f:
        f.write(src)
    argv = ["gcc", "-shared", "-fPIC", "-o", path, c, f"-Wl,-soname,{soname}",
            "-Wl,--no-as-needed"]
    for lib_dir, lib in needs:
        argv += [f"-L{lib_dir}", f"-l:{lib}"]
    if rpath:
        argv.append(f"-Wl,-rpath,{rpath}")
    r = run(argv)
    os.remove(c)
    if r.returncode != 0:
        raise AssertionError(f"gcc: {r.stderr}")


def check_elf_closure(t):
    with tempfile.TemporaryDirectory() as work:
        root = os.path.join(work, "root")
        multi = os.path.join(root, "usr/lib/x86_64-linux-gnu")
        private = os.path.join(root, "usr/lib/prog")
        os.makedirs(multi)
        os.makedirs(private)
        # libb.so.2 -> libb.so.2.0.1 (a symbolic link, as Debian ships sonames); liba needs it;
        # libpriv is found only through the program's $ORIGIN run path.
        shared_lib(os.path.join(multi, "libb.so.2.0.1"), "libb.so.2")
        os.symlink("libb.so.2.0.1", os.path.join(multi, "libb.so.2"))
        shared_lib(os.path.join(multi, "liba.so.1"), "liba.so.1",
                   needs=[(multi, "libb.so.2")])
        shared_lib(os.path.join(private, "libpriv.so"), "libpriv.so")
        shared_lib(os.path.join(multi, "libunused.so.1"), "libunused.so.1")
        os.makedirs(os.path.join(root, "usr/bin"))
        prog = os.path.join(root, "usr/bin/prog")
        with open(prog + ".c", "w") as f:
            f.write("int main(void) { return 0; }\n")
        r = run(["gcc", "-o", prog, prog + ".c", "-Wl,--no-as-needed", f"-L{multi}",
                 "-l:liba.so.1", f"-L{private}", "-l:libpriv.so",
                 "-Wl,-rpath,$ORIGIN/../lib/prog"])
        t.expect(r.returncode == 0, f"gcc: {r.stderr}")
        os.remove(prog + ".c")
        # The C library and the loader, from this machine, laid out as Debian's libc6 ships
        # them: the loader in the multiarch folder, PT_INTERP's name a link to it.
        interp = subprocess.run(["readelf", "-l", prog], capture_output=True,
                                text=True).stdout.split("interpreter: ")[1].split("]")[0]
        t.expect(interp == "/lib64/ld-linux-x86-64.so.2", f"PT_INTERP {interp}")
        gnu = os.path.join(root, "lib/x86_64-linux-gnu")
        os.makedirs(gnu)
        for name in ("libc.so.6", "ld-linux-x86-64.so.2"):
            shutil.copy(os.path.realpath(f"/lib/x86_64-linux-gnu/{name}"), gnu)
        os.makedirs(os.path.join(root, "lib64"))
        os.symlink("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", os.path.join(root, interp[1:]))

        out = os.path.join(work, "out")
        r = run([ELF, root, out, "/usr/bin/prog"])
        t.expect(r.returncode == 0, f"elf-closure failed: {r.stderr}")
        got = sorted(os.path.relpath(os.path.join(d, f), out)
                     for d, _, fs in os.walk(out) for f in fs)
        want = sorted(["usr/bin/prog", "usr/lib/x86_64-linux-gnu/liba.so.1",
                       "usr/lib/x86_64-linux-gnu/libb.so.2",
                       "usr/lib/x86_64-linux-gnu/libb.so.2.0.1", "usr/lib/prog/libpriv.so",
                       "lib/x86_64-linux-gnu/libc.so.6", "lib64/ld-linux-x86-64.so.2",
                       "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"])
        t.expect(got == want, f"copied {got}, want {want}")
        t.expect(os.readlink(os.path.join(out, "usr/lib/x86_64-linux-gnu/libb.so.2")) ==
                 "libb.so.2.0.1", "the soname link was not kept as a link")
        t.expect("libb.so.2 (for liba.so.1)" in r.stdout and
                 "need 4 libraries and the dynamic loader: 5 files" in r.stdout,
                 f"summary: {r.stdout!r}")
        # The copy runs with nothing but itself: its own loader, only the copied folders.
        r2 = run([os.path.join(out, "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"),
                  "--inhibit-cache", "--library-path",
                  ":".join(os.path.join(out, d) for d in ("lib/x86_64-linux-gnu",
                                                           "usr/lib/x86_64-linux-gnu")),
                  os.path.join(out, "usr/bin/prog")])
        t.expect(r2.returncode == 0, f"the copied program does not run: {r2.stderr}")

        # A library no unpacked package has: named with the file that needs it; nothing written.
        os.remove(os.path.join(multi, "libb.so.2"))
        out2 = os.path.join(work, "out2")
        r = run([ELF, root, out2, "/usr/bin/prog"])
        t.expect(r.returncode != 0 and "liba.so.1 needs libb.so.2" in r.stderr,
                 f"missing library: rc {r.returncode}, said {r.stderr.strip()!r}")
        t.expect(not os.path.exists(out2), "a failed closure wrote files")


def check_tree_manifest(t):
    with tempfile.TemporaryDirectory() as work:
        tree = os.path.join(work, "tree")
        os.makedirs(os.path.join(tree, "a/b"))
        with open(os.path.join(tree, "a/b/run"), "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(os.path.join(tree, "a/b/run"), 0o750)
        with open(os.path.join(tree, "a/data"), "w") as f:
            f.write("x" * 100)
        os.chmod(os.path.join(tree, "a/data"), 0o640)
        os.symlink("b/run", os.path.join(tree, "a/link"))
        manifest = os.path.join(work, "list")
        r = run([TREE, tree])
        t.expect(r.returncode == 0, f"tree-manifest failed: {r.stderr}")
        with open(manifest, "w") as f:
            f.write(r.stdout)
        archive = os.path.join(work, "a.cpio")
        r = run([GEN, "-o", archive, manifest])
        t.expect(r.returncode == 0, f"gen-initramfs refused the listing: {r.stderr}")
        with open(archive, "rb") as f:
            ls = listing(f.read())
        want = {"a": ("drwxr-xr-x", None), "a/b": ("drwxr-xr-x", None),
                "a/b/run": ("-rwxr-x---", "10"), "a/data": ("-rw-r-----", "100"),
                "a/link": ("lrwxrwxrwx", None)}
        t.expect(sorted(ls) == sorted(want), f"cpio lists {sorted(ls)}")
        for name, (mode, size) in want.items():
            got = ls.get(name)
            if got:
                t.expect(got[0] == mode and got[1:3] == ("0", "0") and
                         (size is None or got[3] == size), f"{name}: {got}")
        t.expect(ls.get("a/link", (None,) * 5)[4] == "b/run", "the link's target")
        os.mkfifo(os.path.join(tree, "fifo"))
        r = run([TREE, tree])
        t.expect(r.returncode != 0 and "not a file, folder or symbolic link" in r.stderr,
                 f"a FIFO: rc {r.returncode}, {r.stderr!r}")


def run_all(t):
    t.check("kmod-closure: a module's closure from a .deb, modules.dep in load order, refusals",
            check_kmod_closure)
    t.check("elf-closure: exactly the libraries and loader a program loads; the copy runs alone",
            check_elf_closure)
    t.check("tree-manifest: a staged tree as gen-initramfs writes it and GNU cpio reads it",
            check_tree_manifest)
