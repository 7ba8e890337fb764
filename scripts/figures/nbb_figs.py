#!/usr/bin/env python3
"""Figures from nvm-block-bench reports written by scripts/gpu/nbb-*.sh.

Usage: nbb_figs.py RESULTS_DIR   (run with /usr/bin/python3: Debian's matplotlib)
Reads whichever of these are in RESULTS_DIR and writes, beside them:
  issue3:  ideal_read_512.json, ideal_read_4096.json, null_read_512.json,
           single_qp_{null,ideal}[_large].json
           -> nbb_single_qp.png, nbb_issue3.json (IOPS vs the ceilings measured in the same run)
  fig4:    fig4_ssd{1,2,4,8,10}.json, fig4_ceilings.json -> nbb_fig4.png, nbb_fig4.json
  fig5:    fig5_{emulated,zerocopy,uring_pagecache,uring_direct}.json
           -> nbb_fig5.png (bandwidth), nbb_fig5_latency.png (p50/p99), nbb_fig5.json
Every JSON carries the plotted numbers and, per source report, the command, commit, GPU, CUDA
driver and date from bamkit.machine.
Reports of either schema version (scripts/figures/reports.py)."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pylib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from reports import ceilings, jobs, load, provenance, title_of  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# The engine's optane-p5800x preset (docs/gpu-engine.md): per-SSD IOPS caps at 512 B / 4 KiB.
OPTANE_CAPS = {("read", 512): 5.1e6, ("read", 4096): 1.5e6, ("write", 512): 1.0e6, ("write", 4096): 1.5e6}


def read_jobs(d, name, sources):
    """The (config, job, bamkit, ceilings) list of report d/name.json ([] when absent; ceilings in
    the version-2 shape or None); notes its provenance."""
    f = d / f"{name}.json"
    if not f.exists():
        return []
    doc = load(f)
    sources.append(provenance(f, doc))
    return [(cfg, j, b, ceilings(doc, b)) for cfg, j, b in jobs(doc)]


def total_iops(job):
    return job["read"]["iops"] + job["write"]["iops"]


def total_bw(job):
    return job["read"]["bw_bytes"] + job["write"]["bw_bytes"]


def spread(b, job):
    r = b.get("repeat")
    return (r["iops_min"], r["iops_max"]) if r else (total_iops(job), total_iops(job))


def pct(job, key):
    d = job["read"] if job["read"]["total_ios"] else job["write"]
    return d["clat_ns"].get("percentile", {}).get(key, 0) / 1e3


def issue3(d):
    sources, table = [], {}
    for name in ["ideal_read_512", "ideal_read_4096", "null_read_512"]:
        js = read_jobs(d, name, sources)
        if not js:
            continue
        cfg, job, b, c = js[0]
        row = {"iops_median": total_iops(job), "iops_min_max": spread(b, job),
               "gbps": total_bw(job) / 1e9, "p50_us": pct(job, "50.000000"), "p99_us": pct(job, "99.000000")}
        if c and c["direct_reads_per_s"]:
            row["direct_reads_per_s"] = c["direct_reads_per_s"]
            row["of_direct_read"] = row["iops_median"] / c["direct_reads_per_s"]
        if c and c["h2d_memcpy_gbps"]:
            row["h2d_memcpy_gbps"] = c["h2d_memcpy_gbps"]
            row["of_memcpy"] = row["gbps"] / c["h2d_memcpy_gbps"]
        table[name] = row
    fig, ax = plt.subplots(figsize=(6, 4))
    curves = {}
    for m in ["null", "ideal"]:
        pts = []
        for name in [f"single_qp_{m}", f"single_qp_{m}_large"]:
            pts += [(cfg["workload"]["threads"], total_iops(j)) for cfg, j, _, _ in read_jobs(d, name, sources)]
        if not pts:
            continue
        pts.sort()
        curves[m] = pts
        ax.plot([p[0] for p in pts], [p[1] / 1e6 for p in pts], marker="o", label=f"{m} SSD")
    if not sources:
        return None
    ax.set_xscale("log", base=2)
    ax.set_xlabel("GPU threads on one queue pair (1024 entries)")
    ax.set_ylabel("512 B random read IOPS (millions)")
    ax.set_title(title_of(sources), fontsize=7)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(d / "nbb_single_qp.png", dpi=130)
    out = {"script": "scripts/figures/nbb_figs.py", "figures": ["nbb_single_qp.png"], "table": table,
           "single_qp": curves, "sources": sources}
    (d / "nbb_issue3.json").write_text(json.dumps(out, indent=1))
    return out


def fig4(d):
    sources, series = [], {}
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    ceil = {}
    for cfg, _, _, c in read_jobs(d, "fig4_ceilings", sources):
        if c and c["direct_reads_per_s"]:
            ceil[cfg["workload"]["io_size"]] = c["direct_reads_per_s"]
    for n in [1, 2, 4, 8, 10]:
        for cfg, job, b, _ in read_jobs(d, f"fig4_ssd{n}", sources):
            w = cfg["workload"]
            key = (w["op"], w["io_size"])
            series.setdefault(key, {}).setdefault(n, []).append(
                (w["threads"], total_iops(job), *spread(b, job)))
    if not series:
        plt.close(fig)
        return None
    for (r, size), ax in zip([(o, s) for s in [512, 4096] for o in ["read", "write"]], axes.flat):
        for n, pts in sorted(series.get((r, size), {}).items()):
            pts.sort()
            xs = [p[0] for p in pts]
            line, = ax.plot(xs, [p[1] / 1e6 for p in pts], marker="o", label=f"{n} SSD{'s' if n > 1 else ''}")
            ax.fill_between(xs, [p[2] / 1e6 for p in pts], [p[3] / 1e6 for p in pts], color=line.get_color(), alpha=0.15)
            ax.axhline(OPTANE_CAPS[(r, size)] * n / 1e6, color=line.get_color(), lw=0.6, ls=":")
        if r == "read" and size in ceil:
            ax.axhline(ceil[size] / 1e6, color="k", lw=1, ls="--", label=f"direct {size} B read ceiling")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("GPU threads")
        ax.set_ylabel(f"{size} B random {r} IOPS (millions)")
        ax.set_title(f"emulated optane-p5800x, {size} B {r}s (dotted: model caps)", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title_of(sources), fontsize=8)
    fig.tight_layout()
    fig.savefig(d / "nbb_fig4.png", dpi=130)
    out = {"script": "scripts/figures/nbb_figs.py", "figures": ["nbb_fig4.png"],
           "series": {f"{o}_{s}": {str(n): [{"threads": p[0], "iops_median": p[1], "iops_min": p[2], "iops_max": p[3]}
                                            for p in pts] for n, pts in v.items()} for (o, s), v in series.items()},
           "direct_read_ceiling_iops": ceil, "model_caps_per_ssd": {f"{o}_{s}": c for (o, s), c in OPTANE_CAPS.items()},
           "sources": sources}
    (d / "nbb_fig4.json").write_text(json.dumps(out, indent=1))
    return out


def fig5(d):
    labels = {"emulated": "GPU-initiated, ideal emulated SSD", "zerocopy": "GPU zero-copy of pinned DRAM",
              "uring_pagecache": "io_uring + cudaMemcpy, page cache", "uring_direct": "io_uring + cudaMemcpy, O_DIRECT"}
    sources, series, memcpy = [], {}, None
    for k in labels:
        for cfg, job, _, c in read_jobs(d, f"fig5_{k}", sources):
            w = cfg["workload"]
            if c and c["h2d_memcpy_gbps"] and cfg["storage"]["backend"] in ("emulated", "zerocopy"):
                memcpy = c["h2d_memcpy_gbps"]  # the GPU backends' copy of the dataset
            series.setdefault(w["pattern"], {}).setdefault(k, []).append(
                {"io_size": w["io_size"], "gbps": total_bw(job) / 1e9, "iops": total_iops(job),
                 "p50_us": pct(job, "50.000000"), "p99_us": pct(job, "99.000000"),
                 "p99.9_us": pct(job, "99.900000"), "error": job["error"]})
    if not series:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    fig2, axes2 = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for pat, ax, ax2 in zip(["sequential", "random"], axes, axes2):
        for k, pts in series.get(pat, {}).items():
            pts.sort(key=lambda p: p["io_size"])
            xs = [p["io_size"] / 1024 for p in pts]
            line, = ax.plot(xs, [p["gbps"] for p in pts], marker="o", label=labels[k])
            ax2.plot(xs, [p["p50_us"] for p in pts], marker="o", color=line.get_color(), label=f"{labels[k]} p50")
            ax2.plot(xs, [p["p99_us"] for p in pts], marker="x", ls="--", color=line.get_color(), label="p99")
        if memcpy:
            ax.axhline(memcpy, color="k", lw=1, ls="--", label="pinned cudaMemcpy H2D")
        for a in (ax, ax2):
            a.set_xscale("log", base=2)
            a.set_xlabel("I/O size (KiB)")
            a.grid(alpha=0.3)
        ax.set_ylabel("read bandwidth (GB/s)")
        ax2.set_ylabel("latency (us)")
        ax2.set_yscale("log")
        ax.set_title(f"{pat} reads", fontsize=9)
        ax2.set_title(f"{pat} reads: latency p50 (solid), p99 (dashed)", fontsize=9)
        ax.legend(fontsize=7)
        ax2.legend(fontsize=6)
    for f_, name in [(fig, "nbb_fig5.png"), (fig2, "nbb_fig5_latency.png")]:
        f_.suptitle(title_of(sources), fontsize=8)
        f_.tight_layout()
        f_.savefig(d / name, dpi=130)
    out = {"script": "scripts/figures/nbb_figs.py", "figures": ["nbb_fig5.png", "nbb_fig5_latency.png"],
           "series": series, "h2d_memcpy_gbps": memcpy, "sources": sources}
    (d / "nbb_fig5.json").write_text(json.dumps(out, indent=1))
    return out


def main(d):
    d = Path(d)
    made = {name: fn(d) is not None for name, fn in [("issue3", issue3), ("fig4", fig4), ("fig5", fig5)]}
    print(json.dumps(made))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
