#!/usr/bin/env python3
"""Figure-4 analogue (BaM paper) and single-queue sweep (dissertation Fig. 5.6) from the JSON of
bam-gpu-bench, the GPU benchmark of session 1 (folded into nvm-block-bench and removed on branch
issue13: `git log -- tools/bam-gpu-bench`; its documents are not bamkit reports). For its data in
results/ only; nvm-block-bench reports have nbb_figs.py.
Usage: gpu_fig4.py RESULTS_DIR  (reads fig4_{read,write}_N.json, ideal_read_512.json,
single_qp_{null,ideal}.json there; writes fig4.png, single_qp.png and figures.json beside them)."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pylib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from reports import load  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(d):
    d = Path(d)
    ceiling = load(d / "ideal_read_512.json")["ceilings"]
    pcie_iops = ceiling["direct_read_blocks_per_s"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=False)
    sources = []
    for ax, op in zip(axes, ["read", "write"]):
        for n in [1, 2, 4, 8, 10]:
            f = d / f"fig4_{op}_{n}.json"
            r = load(f)
            sources.append({"file": f.name, "command": r["provenance"]["command"], "commit": r["provenance"]["commit"],
                            "gpu": r["provenance"]["gpu"], "date": r["provenance"]["date"]})
            xs = [p["threads"] for p in r["points"]]
            ys = [p["iops_median"] / 1e6 for p in r["points"]]
            line, = ax.plot(xs, ys, marker="o", label=f"{n} SSD{'s' if n > 1 else ''}")
            cap = r["config"]["model_cap_iops_per_drive"] * n / 1e6
            ax.axhline(cap, color=line.get_color(), lw=0.6, ls=":")
        if op == "read":
            ax.axhline(pcie_iops / 1e6, color="k", lw=1, ls="--", label="direct 512 B read ceiling")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("GPU threads")
        ax.set_ylabel(f"512 B random {op} IOPS (millions)")
        ax.set_title(f"emulated optane-p5800x, {op}s (dotted: model caps)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    gpu = sources[0]["gpu"]
    fig.suptitle(f"bamkit GPU-emulated SSDs, {gpu}, commit {sources[0]['commit'][:8]}", fontsize=9)
    fig.tight_layout()
    fig.savefig(d / "fig4.png", dpi=130)

    fig2, ax = plt.subplots(figsize=(6, 4))
    for m in ["null", "ideal"]:
        f = d / f"single_qp_{m}.json"
        if not f.exists():
            continue
        r = load(f)
        sources.append({"file": f.name, "command": r["provenance"]["command"], "commit": r["provenance"]["commit"]})
        ax.plot([p["threads"] for p in r["points"]], [p["iops_median"] / 1e6 for p in r["points"]], marker="o",
                label=f"{m} drive")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("GPU threads on one queue pair (1024 entries)")
    ax.set_ylabel("512 B read IOPS (millions)")
    ax.set_title("one queue pair vs threads", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend()
    fig2.tight_layout()
    fig2.savefig(d / "single_qp.png", dpi=130)
    (d / "figures.json").write_text(json.dumps({"script": "scripts/figures/gpu_fig4.py", "figures": ["fig4.png", "single_qp.png"],
                                                "pcie_ceiling": {"source": "ideal_read_512.json", **ceiling},
                                                "sources": sources}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
