#!/usr/bin/env python3
"""Figures from cache-bench reports written by scripts/gpu/cache-bench-{hot,miss}.sh.

Usage: cache_bench_figs.py RESULTS_DIR   (run with /usr/bin/python3: Debian's matplotlib)
Reads whichever of these are in RESULTS_DIR and writes, beside them:
  hot:   hot_threads_{L}_{T}.json (or the older hot_threads_{L}.json) -> cb_hot_threads.png
         (dissertation Figs 6.6/7.2 hit: accesses/s vs threads, plain / coalesced / reuse x
         thread / warp layout, one panel per line size)
         hot_reuse_{L}_{C}.json -> cb_hot_reuse.png (Fig 7.4 hit: effective GB/s vs coarsening,
         coalesced / array_ref reuse x thread / warp layout, one panel per line size)
  miss:  miss_optane_512*.json, miss_ideal_4k.json -> cb_miss.png (miss-handling IOPS vs the
         optane-p5800x model's cap and GB/s vs the measured PCIe ceiling)
  cb_figs.json: every plotted number and, per source report, the command, commit, GPU, CUDA
  driver and date from bamkit.machine.
Reports of either schema version (scripts/figures/reports.py)."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pylib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbb_figs import OPTANE_CAPS  # noqa: E402
from reports import ceilings, jobs, load, provenance, title_of  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402

LINES = [512, 4096, 8192]

MODE_COLOR = {"plain": "tab:green", "coalesced": "tab:blue", "reuse": "tab:red"}
LAYOUT_STYLE = {"thread": ("-", "o"), "warp": ("--", "s")}


def layout_of(cfg):
    """cache_bench.layout; reports from before the key existed used the thread layout."""
    return cfg["cache_bench"].get("layout", "thread")


def hot_files(d, prefix, L):
    """Reports of one line size: PREFIX_L_*.json (one per point), or the older PREFIX_L.json."""
    return sorted(d.glob(f"{prefix}_{L}_*.json")) or sorted(d.glob(f"{prefix}_{L}.json"))


def hot_figure(d, out, sources, prefix, x_of, y_of, xlabel, ylabel, target=None):
    """One panel per line size, a curve per (mode, layout): y_of(stats) against x_of(config)
    from PREFIX_L_*.json; writes cb_PREFIX.png. out[PREFIX] keeps every point with its
    iterations, measured seconds and misses."""
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), sharey=True)
    made = False
    for ax, L in zip(axes, LINES):
        curves = {}
        for f in hot_files(d, prefix, L):
            doc = load(f)
            sources.append(provenance(f, doc))
            for cfg, _, b in jobs(doc):
                st = b["stats"]
                curves.setdefault((cfg["cache_bench"]["mode"], layout_of(cfg)), []).append(
                    (x_of(cfg), y_of(st), cfg["cache_bench"]["iterations"], st["measured_s"],
                     st["cache"]["misses"]))
        for (mode, layout), pts in sorted(curves.items()):
            pts.sort()
            ls, mk = LAYOUT_STYLE.get(layout, (":", "x"))
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=mk, linestyle=ls,
                    color=MODE_COLOR.get(mode), label=f"{mode}, {layout} layout")
            out.setdefault(prefix, {})[f"{L}/{mode}/{layout}"] = pts
            made = True
        if target:
            ax.axhline(target[0], color="grey", linestyle="--", linewidth=0.8)
            ax.text(1, target[0] * 1.03, target[1], fontsize=7)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"hot cache, {L} B lines", fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.grid(alpha=0.3)
        if curves:
            ax.legend(fontsize=7)
    if not made:
        plt.close(fig)
        return None
    axes[0].set_ylabel(ylabel)
    fig.suptitle(title_of(sources), fontsize=7)
    fig.tight_layout()
    png = f"cb_{prefix}.png"
    fig.savefig(d / png, dpi=130)
    return png


def hot_threads(d, out, sources):
    return hot_figure(d, out, sources, "hot_threads", lambda c: c["workload"]["threads"],
                      lambda st: st["accesses_per_s"] / 1e9,
                      "GPU threads (one random 8 B element per thread and iteration)",
                      "accesses/s (billions)")


def hot_reuse(d, out, sources):
    return hot_figure(d, out, sources, "hot_reuse", lambda c: c["cache_bench"]["coarsening"],
                      lambda st: st["effective_GBps"],
                      "coarsening c (8 B elements per thread and iteration)",
                      "effective GB/s (8 B x accesses / time)", target=(2000, "2 TB/s target"))


def miss(d, out, sources):
    rows = []
    for f in sorted(d.glob("miss_*.json")):
        doc = load(f)
        sources.append(provenance(f, doc))
        for cfg, _, b in jobs(doc):
            st = b["stats"]
            L = cfg["cache"]["line_size"]
            label = (f"{f.stem} {cfg['workload']['pattern']} {cfg['cache_bench']['mode']}"
                     f" c={cfg['cache_bench']['coarsening']}")
            row = {"label": label, "miss_iops": st["miss_iops"], "line": L,
                   "gbps": st["miss_iops"] * L / 1e9, "ssds": cfg["storage"]["ssd_count"],
                   "model": cfg["storage"]["model"]}
            if cfg["storage"]["model"] == "optane-p5800x" and L == 512:
                row["cap_iops"] = OPTANE_CAPS[("read", 512)] * row["ssds"]
                row["of_cap"] = row["miss_iops"] / row["cap_iops"]
            c = ceilings(doc, b)
            if c and c["direct_read_gbps"] and c["h2d_memcpy_gbps"]:
                row["direct_read_gbps"] = c["direct_read_gbps"]
                row["h2d_memcpy_gbps"] = c["h2d_memcpy_gbps"]
                row["of_h2d_memcpy"] = row["gbps"] / c["h2d_memcpy_gbps"]
            rows.append(row)
    if not rows:
        return None
    out["miss"] = rows
    fig, ax = plt.subplots(figsize=(9, 4.5))
    ax.barh([r["label"] for r in rows], [r["miss_iops"] / 1e6 for r in rows])
    for i, r in enumerate(rows):
        note = f"{r['gbps']:.1f} GB/s"
        if "of_cap" in r:
            note += f", {100 * r['of_cap']:.0f}% of 4x5.1M cap"
        if "of_h2d_memcpy" in r:
            note += f", {100 * r['of_h2d_memcpy']:.0f}% of PCIe memcpy"
        ax.text(r["miss_iops"] / 1e6, i, " " + note, va="center", fontsize=7)
    ax.set_xlabel("miss-handling IOPS (millions of NVMe reads+writes/s)")
    ax.set_title(title_of(sources), fontsize=7)
    ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    fig.savefig(d / "cb_miss.png", dpi=130)
    return "cb_miss.png"


def main(d):
    out, sources = {"script": "scripts/figures/cache_bench_figs.py"}, []
    made = [f for f in (hot_threads(d, out, sources), hot_reuse(d, out, sources),
                        miss(d, out, sources)) if f]
    out["figures"] = made
    out["sources"] = sources
    (d / "cb_figs.json").write_text(json.dumps(out, indent=1))
    print(json.dumps(made))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
