#!/usr/bin/env python3
"""The table of scripts/gpu/regression-points.sh: per point, each build's rate (the median of the
medians of its rounds, each round's process a median of 3 runs) with the spread over every run,
the new/old ratio, each build's mean latency (the median over its rounds: at QD1 the figure of
merit) and the ceilings the same process measured. Where an nvm-block-bench process measured a
direct-read ceiling at the job's I/O size, each build's rate over it (the median over its rounds,
each process's rate over its own ceiling): the ceiling moves from process to process (over 10 GiB
by up to 5 %), and a point's rate with it, so two builds compare by that share where they have
it. Points outside UNITS (the table_ and f4_ points) are given in M IOPS, after UNITS' in name
order. The applications' points give their own
figure: taxi-query's bam rows per second, bfs' TEPS, cc's edges scanned per second (its steps vary
from run to run); the other runs' by their I/O rates. A report of several jobs
(table_oneqp_null: 1K / 64K / 1M threads) gives a row per job, named by its threads, or else by
the settings its jobs differ in (taxi_q0q5's sweep), so two builds' rows pair only where their
reports hold the same jobs. Reads
reports of either schema version (scripts/pylib/reports.py). Usage: regression-table.py OUT_DIR
[--json FILE]
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
         "cb_cold_ideal_4k": ("GB/s", None), "cb_hot_coalesced": ("GB/s", None),
         "taxi_q0q5": ("M rows/s", None), "bfs_kron": ("M TEPS", None),
         "cc_kron": ("M edges/s", None)}


# The applications' figures, M: reports.taxi_rows_per_s, reports.graph_figure (bfs' TEPS, cc's
# edges scanned per second).
APPS = {"taxi_q0q5": lambda b: reports.taxi_rows_per_s(b) / 1e6,
        "bfs_kron": lambda b: reports.graph_figure(b) / 1e6,
        "cc_kron": lambda b: reports.graph_figure(b) / 1e6}


def job_names(point, doc):
    """The row name of each job of a report: the point's, or with its threads where it has more
    than one job."""
    cfgs = [cfg for cfg, _, _ in reports.jobs(doc)]
    if len(cfgs) == 1:
        return [point]
    threads = [cfg["workload"]["threads"] for cfg in cfgs]
    if len(set(threads)) == len(threads):
        return [f"{point} @{t} threads" for t in threads]
    # Else by the settings its jobs differ in (a tool's --sweep), if they tell every job apart.
    flat = [reports.flatten(cfg) for cfg in cfgs]
    keys = sorted(k for k in set().union(*flat)
                  if len({setting(f.get(k)) for f in flat}) > 1)
    names = [f"{point} " + ", ".join(f"{k}={setting(f.get(k))}" for k in keys) for f in flat]
    if keys and len(set(names)) == len(names):
        return names
    return [f"{point} #{i}" for i in range(len(cfgs))]


def setting(v):
    """A setting as a row name shows it: numbers alike whether stored as 30 or 30.0."""
    return f"{v:g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)


def mean_latency_us(job):
    """The job's mean completion latency, us (of its reads when it has any); None without one
    (cache-bench's element accesses)."""
    mean = reports.measured_side(job).get("clat_ns", {}).get("mean")
    return mean / 1e3 if mean else None


def rate(point, cfg, b):
    """The point's figure of merit and every run's (median first), for one job."""
    runs = b.get("repeat", {}).get("iops") or [b["iops"]]
    if point == "nbb_ideal_4096":
        size = cfg["workload"]["io_size"]
        return b["iops"] * size / 1e9, [r * size / 1e9 for r in runs]
    if point in ("cb_hot_reuse", "cb_hot_coalesced", "cb_cold_ideal_4k"):
        gb = b["stats"]["effective_GBps"]
        return gb, [r * 8 / 1e9 for r in runs]  # accesses/s of each run, 8 B each
    if point in APPS:
        # The applications' figure is the median run's; the other runs' are scaled by their I/O
        # rates (each run does the same I/Os: taxi-query and bfs exactly, cc about, by its steps).
        fig = APPS[point](b)
        runs = b.get("repeat", {}).get("iops") or [b["iops"]]
        return fig, [fig * r / b["iops"] for r in runs]
    if point == "cb_miss_optane":
        miss = b["stats"]["miss_iops"] / 1e6
        return miss, [miss * r / b["iops"] for r in runs]
    return b["iops"] / 1e6, [r / 1e6 for r in runs]


def of_ceiling(doc, cfg, b, c):
    """An nvm-block-bench job's I/O rate over `c`, the direct-read ceiling its process measured
    (reports.ceilings), at its I/O size; None without one, and for other tools (cache-bench's iops
    count element accesses)."""
    if (doc["bamkit"].get("tool") != "nvm-block-bench" or not c or not c.get("direct_reads_per_s")
            or c.get("io_size") != cfg["workload"]["io_size"]):
        return None
    return b["iops"] / c["direct_reads_per_s"]


def points_in(out):
    """The points whose reports are in `out` (<point>_<old|new>_<round>.json), UNITS' first."""
    found = {m.group(1) for f in out.glob("*.json")
             if (m := re.fullmatch(r"(.+)_(old|new)_[0-9]+\.json", f.name))}
    return ([(p, u) for p, (u, _) in UNITS.items() if p in found] +
            [(p, "M IOPS") for p in sorted(found - set(UNITS))])


def build_rows(out, point, unit):
    """A row per job of the point's reports: each build's rounds pooled, job by job."""
    rows = {}
    for build in ("old", "new"):
        for f in sorted(out.glob(f"{point}_{build}_*.json")):
            doc = reports.load(f)
            commit = reports.provenance(f, doc)["commit"]
            for name, (cfg, job, b) in zip(job_names(point, doc), reports.jobs(doc)):
                row = rows.setdefault(name, {"point": name, "unit": unit})
                acc = row.setdefault(build, {"medians": [], "every": [], "lat": [], "shares": [],
                                             "ceilings": None, "commit": commit})
                m, runs = rate(point, cfg, b)
                acc["medians"].append(m)
                acc["every"] += runs
                acc["lat"].append(mean_latency_us(job))
                c = reports.ceilings(doc, b)
                acc["shares"].append(of_ceiling(doc, cfg, b, c))
                acc["ceilings"] = acc["ceilings"] or c
    for row in rows.values():
        for build in ("old", "new"):
            if build in row:
                a = row[build]
                row[build] = {"median": statistics.median(a["medians"]), "min": min(a["every"]),
                              "max": max(a["every"]), "rounds": len(a["medians"]),
                              "runs": len(a["every"]),
                              "mean_latency_us": (statistics.median(a["lat"])
                                                  if None not in a["lat"] else None),
                              "of_ceiling": (statistics.median(a["shares"])
                                             if None not in a["shares"] else None),
                              "commit": a["commit"], "ceilings": a["ceilings"]}
        if "old" in row and "new" in row:
            row["new_over_old"] = row["new"]["median"] / row["old"]["median"]
    return list(rows.values())


def main():
    out = Path(sys.argv[1])
    rows = [row for point, unit in points_in(out) for row in build_rows(out, point, unit)]
    print("| point | unit | old: median (min-max) | new: median (min-max) | new/old "
          "| of the ceiling: old / new | mean latency, us: old / new |")
    print("|---|---|---|---|---|---|---|")
    num = lambda v: f"{v:.2f}" if v >= 1 else f"{v:.4g}"  # QD1's rates are under 1 M
    for r in rows:
        cell = lambda b: (f"{num(r[b]['median'])} ({num(r[b]['min'])}-{num(r[b]['max'])})"
                          if b in r else "-")
        ratio = f"{r['new_over_old']:.3f}" if "new_over_old" in r else "-"
        lat = " / ".join(f"{r[b]['mean_latency_us']:.2f}"
                         if b in r and r[b]["mean_latency_us"] is not None else "-"
                         for b in ("old", "new"))
        share = " / ".join(f"{r[b]['of_ceiling']:.3f}"
                           if b in r and r[b]["of_ceiling"] is not None else "-"
                           for b in ("old", "new"))
        print(f"| {r['point']} | {r['unit']} | {cell('old')} | {cell('new')} | {ratio} | {share} "
              f"| {lat} |")
    if "--json" in sys.argv:
        Path(sys.argv[sys.argv.index("--json") + 1]).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
