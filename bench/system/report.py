"""The table, the docs section and the plots of `make bench-system` (bench/system/run).

Every figure is a difference between the snapshot taken when the measured interval began and
the one taken when it ended (the hypervisor's counters are since boot; `sched reset` starts
the scheduler's own interval at the first snapshot)."""
import os
import re
import statistics

BEGIN = "<!-- bench-system: begin (written by make bench-system) -->"
END = "<!-- bench-system: end -->"
REF_SWITCH = 9400       # entries per switch on the switch path at 32 guests before re-placement


def delta(w, *path):
    a, b = w["first"], w["last"]
    for k in path:
        a, b = a[k], b[k]
    return b - a


def figures(w):
    """The run's numbers, as the table shows them."""
    s1 = w["last"]["sched"]
    sw = delta(w, "sched", "switches") or 1
    wall = delta(w, "stats", "wall") or 1
    render = delta(w, "stats", "rendering")
    cs, ca = delta(w, "sched", "copy_switch_us") * 1000, delta(w, "sched", "copy_ahead_us") * 1000
    fsw = delta(w, "sched", "floor_switches") or 1
    f = {
        "util": s1["util"], "mmr": s1["mmr"], "jain": s1["jain"], "backlogged": s1["backlogged"],
        "switches": delta(w, "sched", "switches"),
        "switch_per_s": delta(w, "sched", "switches") / w["run_s"],
        "path": delta(w, "sched", "entries_switch") / sw,
        "ahead": delta(w, "sched", "entries_ahead") / sw,
        "used": delta(w, "sched", "ahead_used") / sw,
        "wasted": delta(w, "sched", "ahead_wasted") / sw,
        "move": delta(w, "sched", "entries_move") / sw,
        "moves": delta(w, "sched", "moves"),
        "floor": delta(w, "sched", "floor_sum") / fsw,
        "floor_held": delta(w, "sched", "floor_held_sum") / fsw,
        "busy": statistics.mean([x["sched"]["busy"] for x in w["samples"]] or [s1["busy"]]),
        "copy_gpu": cs / (cs + render) if cs + render else 0.0,
        "cpu": {k: delta(w, "stats", k) / wall for k in ("guests", "rendering", "copying", "composing")},
        "answer_median": statistics.median(w["answers"]) if w["answers"] else 0.0,
        "answer_max": max(w["answers"]) if w["answers"] else 0.0,
    }
    f["total"] = f["path"] + f["ahead"] + f["move"]
    f["cpu"]["other"] = max(0.0, 1 - sum(f["cpu"].values()))
    return f


def guest_rows(w):
    rows = []
    for g in w["guests"]:
        nm = g["name"]
        r = w["last"]["sched"]["rows"].get(nm, {})
        done = w["last"]["vgpu"][nm]["completed"] - w["first"]["vgpu"][nm]["completed"]
        ex1, ex0 = w["last"]["exits"].get(nm, {}), w["first"]["exits"].get(nm, {})
        exits = {k: (ex1[k] - ex0.get(k, 0)) / w["run_s"] for k in ex1}
        rows.append({"name": nm, "kind": g["kind"], "weight": g["weight"], "fps": done / w["run_s"],
                     "share": r.get("share", 0.0), "ideal": r.get("ideal"), "backlog": r.get("backlog", 0.0),
                     "exits": exits})
    return rows


def first_frames(w):
    """The guests' first frames (ms from each one's start to its first workload retired), in
    guest order; None for a guest that had none when the pictures were all up."""
    return [w.get("first_ms", {}).get(g["name"]) for g in w["guests"]]


def first_frames_line(w):
    ff = first_frames(w)
    got = sorted(x for x in ff if x is not None)
    if not got:
        return "first frames: none measured"
    missing = len(ff) - len(got)
    return (f"first frames (ms after each guest's start): min {got[0]}, median {statistics.median(got):.0f}, "
            f"max {got[-1]}" + (f"; {missing} guests had none" if missing else "") + "; per guest: " +
            " ".join(f"{g['name']} {x if x is not None else '-'}" for g, x in zip(w["guests"], ff)))


def pct(x):
    return f"{100 * x:.1f}%"


def table(res):
    out = [f"make bench-system, {res['date']}, commit {res['commit']}: Bochs, {res['seconds']} s measured per wall "
           f"after {30} s settling; software Gen9 model"]
    ok = [w for w in res["walls"] if "error" not in w]
    for w in res["walls"]:
        if "error" in w:
            out.append(f"\n{w['n']} guests: the run did not complete: {w['error'].splitlines()[0]}")
    if not ok:
        return "\n".join(out)
    F = {w["n"]: figures(w) for w in ok}
    ns = [w["n"] for w in ok]
    head = "| | " + " | ".join(f"{n} guests" for n in ns) + " |"
    out += ["", head, "|---|" + "---|" * len(ns)]

    def row(label, fn):
        out.append(f"| {label} | " + " | ".join(fn(F[n]) for n in ns) + " |")
    row("GPU utilisation (render clock)", lambda f: pct(f["util"]))
    row("backlogged vGPUs / MMR / Jain",
        lambda f: f"{f['backlogged']} / " + (f"{f['mmr']:.3f} / {f['jain']:.3f}" if f["mmr"] is not None else "- / -"))
    row("switches per s", lambda f: f"{f['switch_per_s']:.1f}")
    row("busy vGPUs (placement, mean)", lambda f: f"{f['busy']:.1f}")
    row("GGTT entries per switch: switch path", lambda f: f"{f['path']:.0f}")
    row("... written ahead (used / wasted)", lambda f: f"{f['ahead']:.0f} ({f['used']:.0f} / {f['wasted']:.0f})")
    row("... re-placement (moves)", lambda f: f"{f['move']:.0f} ({f['moves']})")
    row("... all / floor (configured sizes)", lambda f: f"{f['total']:.0f} / {f['floor']:.0f}")
    row("copy share of GPU time (switch path)", lambda f: pct(f["copy_gpu"]))
    row("CPU: guests / rendering / copying / composing / other",
        lambda f: " / ".join(pct(f["cpu"][k]) for k in ("guests", "rendering", "copying", "composing", "other")))
    row("shell answer time (median / max)", lambda f: f"{f['answer_median']:.2f} s / {f['answer_max']:.2f} s")
    out.append("| first frame, ms after the guest's start (min / median / max) | " + " | ".join(
        (lambda got: f"{got[0]} / {statistics.median(got):.0f} / {got[-1]}" if got else "-")(
            sorted(x for x in first_frames(w) if x is not None)) for w in ok) + " |")
    row("boot to prompt / all pictures", lambda f: "")
    out[-1] = "| boot to prompt / all pictures | " + " | ".join(f"{w['boot_s']:.0f} s / {w['pictures_s']:.0f} s"
                                                           for w in ok) + " |"
    for w in ok:
        out += ["", f"{w['n']} guests, per guest (fps: frames completed per second; share of GPU time, ideal "
                    f"over the backlogged, '-' if not backlogged; VM exits per second, total and by reason):", "",
                "| guest | kind | weight | first frame ms | fps | share | ideal | backlog | exits/s | main exit reasons /s |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for r, ff in zip(guest_rows(w), first_frames(w)):
            total = r["exits"].get("total", 0.0)
            top = sorted(((v, k) for k, v in r["exits"].items() if k != "total"), reverse=True)[:3]
            out.append(f"| {r['name']} | {r['kind']} | {r['weight']} | {ff if ff is not None else '-'} | "
                       f"{r['fps']:.1f} | {r['share']:.3f} | "
                       + (f"{r['ideal']:.3f}" if r["ideal"] is not None else "-")
                       + f" | {pct(r['backlog'])} | {total:.0f} | "
                       + ", ".join(f"{k} {v:.0f}" for v, k in top) + " |")
    if 32 in F:
        f = F[32]
        out += ["", f"Re-placement's target at 32 guests: switch-path entries per switch {f['path']:.0f} against "
                    f"{REF_SWITCH} before ({REF_SWITCH / max(f['path'], 1):.1f}x fewer; the target is 4x, or the "
                    f"floor: {f['floor']:.0f} per switch with the configured sizes)."]
    return "\n".join(out)


def plots(res, outdir):
    """Two PNGs: GPU share over time per guest (one panel per wall) and entries per switch
    against busy guests (host bench and running system side by side).  Returns their paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(outdir, exist_ok=True)
    ok = [w for w in res["walls"] if "error" not in w and w["samples"]]
    paths = []
    colours = {"signage": "tab:blue", "dashboard": "tab:orange", "heavy": "tab:red", "idle": "tab:gray"}
    if ok:
        fig, axes = plt.subplots(1, len(ok), figsize=(5 * len(ok), 4), squeeze=False)
        for ax, w in zip(axes[0], ok):
            kinds = {g["name"]: g["kind"] for g in w["guests"]}
            prev_t, prev = 0.0, {nm: w["first"]["sched"]["rows"].get(nm, {}).get("gpu_ms", 0) for nm in kinds}
            series = {nm: [] for nm in kinds}
            ts = []
            for smp in w["samples"]:
                rows = smp["sched"]["rows"]
                d = {nm: rows.get(nm, {}).get("gpu_ms", 0) - prev[nm] for nm in kinds}
                tot = sum(d.values()) or 1
                for nm in kinds:
                    series[nm].append(d[nm] / tot)
                ts.append(smp["t"])
                prev = {nm: rows.get(nm, {}).get("gpu_ms", 0) for nm in kinds}
                prev_t = smp["t"]
            for nm, ys in series.items():
                ax.plot(ts, ys, color=colours[kinds[nm]], alpha=0.8, linewidth=1)
            ax.set_title(f"{w['n']} guests")
            ax.set_xlabel("time (s)")
            ax.set_ylabel("GPU share in the last interval")
            ax.set_ylim(0, None)
        handles = [plt.Line2D([], [], color=c, label=k) for k, c in colours.items()]
        axes[0][0].legend(handles=handles, loc="upper right", fontsize="small")
        fig.suptitle("make bench-system: GPU share over time, per guest (colour = kind)")
        fig.tight_layout()
        p = os.path.join(outdir, "bench-system-share.png")
        fig.savefig(p, dpi=90)
        plt.close(fig)
        paths.append(p)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    hc = res.get("host_curve", [])
    if hc:
        b = [r["busy"] for r in hc]
        a1.plot(b, [r["fix_switch"] for r in hc], "o--", label="switch path, placement fixed at creation")
        a1.plot(b, [r["switch"] for r in hc], "o-", label="switch path, re-placed")
        a1.plot(b, [r["total"] for r in hc], "s-", label="all entries, re-placed")
        a1.plot(b, [r["floor"] for r in hc], "k:", label="floor")
    a1.set_title("host bench: 32 guests of 64 + 384 MiB")
    a1.set_xlabel("busy guests")
    a1.set_ylabel("GGTT entries per switch")
    a1.legend(fontsize="small")
    F = [(figures(w), w["n"]) for w in ok]
    if F:
        a2.plot([f["busy"] for f, _ in F], [f["path"] for f, _ in F], "o-", label="switch path")
        a2.plot([f["busy"] for f, _ in F], [f["total"] for f, _ in F], "s-", label="all entries")
        a2.plot([f["busy"] for f, _ in F], [f["floor"] for f, _ in F], "k:", label="floor")
        for f, n in F:
            a2.annotate(f"{n} guests", (f["busy"], f["path"]), fontsize="small")
        a2.axhline(REF_SWITCH, color="gray", linestyle="--", linewidth=0.8)
        a2.annotate("before (32 guests)", (0, REF_SWITCH), fontsize="small", color="gray")
    a2.set_title("running system (Bochs): 32 + 128 MiB guests")
    a2.set_xlabel("busy guests (mean)")
    a2.set_ylabel("GGTT entries per switch")
    a2.legend(fontsize="small")
    fig.tight_layout()
    p = os.path.join(outdir, "bench-system-entries.png")
    fig.savefig(p, dpi=90)
    plt.close(fig)
    paths.append(p)
    return paths


def write_docs(res, text, plots, path):
    """Replaces the section between the markers in docs/benchmarks.md (appends it the first
    time)."""
    with open(path) as f:
        doc = f.read()
    rel = [os.path.relpath(p, os.path.dirname(path)) for p in plots]
    section = "\n".join([BEGIN, "", text, ""] + [f"![{os.path.basename(p)}]({p})" for p in rel] + ["", END])
    if BEGIN in doc and END in doc:
        doc = re.sub(re.escape(BEGIN) + r".*?" + re.escape(END), lambda m: section, doc, flags=re.S)
    else:
        doc = doc.rstrip("\n") + "\n\n" + section + "\n"
    with open(path, "w") as f:
        f.write(doc)
