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
  driver and date from bamkit.machine."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbb_figs import OPTANE_CAPS, jobs, load, provenance, title_of  # noqa: E402

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


def plot_curves(ax, curves, out, key, L):
    for (mode, layout), pts in sorted(curves.items()):
        pts.sort()
        ls, mk = LAYOUT_STYLE.get(layout, (":", "x"))
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=mk, linestyle=ls,
                color=MODE_COLOR.get(mode), label=f"{mode}, {layout} layout")
        out.setdefault(key, {})[f"{L}/{mode}/{layout}"] = pts


def hot_threads(d, out, sources):
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), sharey=True)
    made = False
    for ax, L in zip(axes, LINES):
        curves = {}
        for f in hot_files(d, "hot_threads", L):
            doc = load(f)
            sources.append(provenance(f, doc))
            for cfg, _, b in jobs(doc):
                st = b["stats"]
                curves.setdefault((cfg["cache_bench"]["mode"], layout_of(cfg)), []).append(
                    (cfg["workload"]["threads"], st["accesses_per_s"] / 1e9,
                     cfg["cache_bench"]["iterations"], st["measured_s"], st["cache"]["misses"]))
        if not curves:
            continue
        plot_curves(ax, curves, out, "hot_threads", L)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"hot cache, {L} B lines", fontsize=9)
        ax.set_xlabel("GPU threads (one random 8 B element per thread and iteration)", fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        made = True
    if not made:
        plt.close(fig)
        return None
    axes[0].set_ylabel("accesses/s (billions)")
    fig.suptitle(title_of(sources), fontsize=7)
    fig.tight_layout()
    fig.savefig(d / "cb_hot_threads.png", dpi=130)
    return "cb_hot_threads.png"


def hot_reuse(d, out, sources):
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), sharey=True)
    made = False
    for ax, L in zip(axes, LINES):
        curves = {}
        for f in hot_files(d, "hot_reuse", L):
            doc = load(f)
            sources.append(provenance(f, doc))
            for cfg, _, b in jobs(doc):
                st = b["stats"]
                curves.setdefault((cfg["cache_bench"]["mode"], layout_of(cfg)), []).append(
                    (cfg["cache_bench"]["coarsening"], st["effective_GBps"],
                     cfg["cache_bench"]["iterations"], st["measured_s"], st["cache"]["misses"]))
        if not curves:
            continue
        plot_curves(ax, curves, out, "hot_reuse", L)
        ax.axhline(2000, color="grey", linestyle="--", linewidth=0.8)
        ax.text(1, 2050, "2 TB/s target", fontsize=7)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"hot cache, {L} B lines", fontsize=9)
        ax.set_xlabel("coarsening c (8 B elements per thread and iteration)", fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        made = True
    if not made:
        plt.close(fig)
        return None
    axes[0].set_ylabel("effective GB/s (8 B x accesses / time)")
    fig.suptitle(title_of(sources), fontsize=7)
    fig.tight_layout()
    fig.savefig(d / "cb_hot_reuse.png", dpi=130)
    return "cb_hot_reuse.png"


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
            c = b.get("ceilings") or doc["bamkit"].get("ceilings")
            if c and "pcie_direct_read_gbps" in c:
                row["pcie_direct_read_gbps"] = c["pcie_direct_read_gbps"]
                row["pcie_h2d_memcpy_gbps"] = c["pcie_h2d_memcpy_gbps"]
                row["of_pcie_memcpy"] = row["gbps"] / c["pcie_h2d_memcpy_gbps"]
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
        if "of_pcie_memcpy" in r:
            note += f", {100 * r['of_pcie_memcpy']:.0f}% of PCIe memcpy"
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
