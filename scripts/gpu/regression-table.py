#!/usr/bin/env python3
"""The table of scripts/gpu/regression-points.sh: per point, each build's rate (the median of the
medians of its rounds, each round's process a median of 3 runs) with the spread over every run,
the new/old ratio, and the ceilings the same process measured. Points outside UNITS (the
table_ and f4_ points) are given in M IOPS, after UNITS' in name order; a report's first job
counts (table_oneqp_null: its 1K threads). Reads reports of either
schema version (scripts/pylib/reports.py). Usage: regression-table.py OUT_DIR [--json FILE]
"""
import json
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pylib"))
import reports  # noqa: E402

UNITS = {"nbb_ideal_512": ("M IOPS", 1e6), "nbb_ideal_4096": ("GB/s", None),
         "cb_hot_reuse": ("GB/s", None), "cb_miss_optane": ("M miss IOPS", 1e6),
         "nbb_optane4_512": ("M IOPS", 1e6), "nbb_null_512": ("M IOPS", 1e6),
         "cb_cold_ideal_4k": ("GB/s", None), "cb_hot_coalesced": ("GB/s", None)}


def rate(point, doc):
    """The point's figure of merit and every run's (median first)."""
    cfg, job, b = reports.jobs(doc)[0]
    runs = b.get("repeat", {}).get("iops") or [b["iops"]]
    if point == "nbb_ideal_4096":
        size = cfg["workload"]["io_size"]
        return b["iops"] * size / 1e9, [r * size / 1e9 for r in runs]
    if point in ("cb_hot_reuse", "cb_hot_coalesced", "cb_cold_ideal_4k"):
        gb = b["stats"]["effective_GBps"]
        return gb, [r * 8 / 1e9 for r in runs]  # accesses/s of each run, 8 B each
    if point == "cb_miss_optane":
        miss = b["stats"]["miss_iops"] / 1e6
        return miss, [miss * r / b["iops"] for r in runs]
    return b["iops"] / 1e6, [r / 1e6 for r in runs]


def points_in(out):
    """The points whose reports are in `out` (<point>_<old|new>_<round>.json), UNITS' first."""
    found = {m.group(1) for f in out.glob("*.json")
             if (m := re.fullmatch(r"(.+)_(old|new)_[0-9]+\.json", f.name))}
    return ([(p, u) for p, (u, _) in UNITS.items() if p in found] +
            [(p, "M IOPS") for p in sorted(found - set(UNITS))])


def main():
    out = Path(sys.argv[1])
    rows = []
    for point, unit in points_in(out):
        row = {"point": point, "unit": unit}
        for build in ("old", "new"):
            medians, every, ceil, commit = [], [], None, None
            for f in sorted(out.glob(f"{point}_{build}_*.json")):
                doc = reports.load(f)
                m, runs = rate(point, doc)
                medians.append(m)
                every += runs
                ceil = ceil or reports.ceilings(doc, reports.jobs(doc)[0][2])
                commit = reports.provenance(f, doc)["commit"]
            if not medians:
                continue
            row[build] = {"median": statistics.median(medians), "min": min(every),
                          "max": max(every), "rounds": len(medians), "runs": len(every),
                          "commit": commit, "ceilings": ceil}
        if "old" in row and "new" in row:
            row["new_over_old"] = row["new"]["median"] / row["old"]["median"]
        rows.append(row)
    print("| point | unit | old: median (min-max) | new: median (min-max) | new/old |")
    print("|---|---|---|---|---|")
    num = lambda v: f"{v:.2f}" if v >= 1 else f"{v:.4g}"  # QD1's rates are under 1 M
    for r in rows:
        cell = lambda b: (f"{num(r[b]['median'])} ({num(r[b]['min'])}-{num(r[b]['max'])})"
                          if b in r else "-")
        ratio = f"{r['new_over_old']:.3f}" if "new_over_old" in r else "-"
        print(f"| {r['point']} | {r['unit']} | {cell('old')} | {cell('new')} | {ratio} |")
    if "--json" in sys.argv:
        Path(sys.argv[sys.argv.index("--json") + 1]).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
