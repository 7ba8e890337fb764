#!/usr/bin/env python3
"""Calls 3 and 5: the engine's SM share against the application's. A row per engine shape (the
automatic one, run twice, and blocks of 4 warps on the first SMs), from one call's folder of
regression-points.sh runs named <protocol>-<old shape>-<new shape>: the 10 GiB point's share of
the direct-read ceiling its process measured and p99.99 / p50 in each protocol run; taxi-query's
bam rows per second (Q0 at D = 30 with 4 KiB and 512 B lines, and the geometric mean of its 8
jobs over the automatic shape's processes' mean); bfs' TEPS and cc's edges scanned per second
over the automatic shape's, with cc's steps (its label race gives 3 or 4; the edges it scans per
second do not follow them: 1.814-1.832 G/s with either in the automatic shape's processes of
results/regression-points/h200/). Usage, from this folder:
    split.py call3 > call3/split.md
    split.py call5 > call5/split.md"""
import glob
import json
import math
import sys

d = sys.argv[1]


def ten_gib(j):
    """(share, p50 us, p99.99 us) of a 10 GiB report."""
    job = json.load(open(j))["jobs"][0]
    b, pc = job["bamkit"], job["read"]["clat_ns"]["percentile"]
    return (b["iops"] / b["ceilings"]["direct_reads_per_s"], pc["50.000000"] / 1e3,
            pc["99.990000"] / 1e3)


def taxi(j):
    """{(line, distance, query): M rows/s} of a taxi-query report."""
    out = {}
    for job in json.load(open(j))["jobs"]:
        b = job["bamkit"]
        t, line = b["config"]["taxi"], b["config"]["cache"]["line_size"]
        bam = [i for i in b["stats"]["taxi"]["impls"] if i["impl"] == "bam"][0]
        out[(line, t["min_distance"], t["queries"])] = bam["rows_per_s"] / 1e6
    return out


def graph(j):
    """(rate, steps): bfs' TEPS or cc's edges scanned per second, and the run's steps."""
    g = json.load(open(j))["jobs"][0]["bamkit"]["stats"]["graph"]
    rate = g["teps"] if g["algorithm"] == "bfs" else g["edges_read"] / g["time_s"]
    return rate, g["steps"]


rows = {}  # shape -> list of {what: value}, one per process
for folder in sorted(glob.glob(f"{d}/*-*-*/")):
    folder = folder.rstrip("/")
    proto, a, b = folder.split("/")[-1].split("-")
    for build, shape in (("old", a), ("new", b)):
        r = {proto: ten_gib(f"{folder}/table_optane10_1g_{build}_1.json")}
        for point, read in (("taxi_q0q5", taxi), ("bfs_kron", graph), ("cc_kron", graph)):
            f = glob.glob(f"{folder}/{point}_{build}_1.json")
            if f:
                r[point] = read(f[0])
        rows.setdefault(shape, []).append(r)


def of_auto(point):
    """The automatic shape's processes' mean of a point (taxi: per job)."""
    got = [r[point] for r in rows["auto"] if point in r]
    if point == "taxi_q0q5":
        return {k: sum(t[k] for t in got) / len(got) for k in got[0]}
    return sum(rate for rate, _ in got) / len(got)


present = {k for rs in rows.values() for r in rs for k in r}
cols = [("hardware", "10 GiB hw: share; p99.99 / p50"), ("emulator", "10 GiB emu: share; p99.99 / p50"),
        ("taxi_q0q5", "taxi Q0 D=30, M rows/s: 4 KiB / 512 B lines"),
        ("taxi_geo", "taxi, 8 jobs: geomean of auto's"), ("bfs_kron", "bfs TEPS: of auto's"),
        ("cc_kron", "cc edges/s: of auto's (steps)")]
cols = [(k, h) for k, h in cols if k in present or (k == "taxi_geo" and "taxi_q0q5" in present)]
base = {p: of_auto(p) for p in ("taxi_q0q5", "bfs_kron", "cc_kron") if p in present}


def cell(key, procs):
    if key in ("hardware", "emulator"):
        return ", ".join(f"{s:.3f}; {p9 / p5:.1f} x" for s, p5, p9 in (r[key] for r in procs
                                                                       if key in r))
    if key == "taxi_q0q5":
        return ", ".join(f"{t[(4096, 30.0, 'q0')]:.0f} / {t[(512, 30.0, 'q0')]:.0f}"
                         for t in (r[key] for r in procs if key in r))
    if key == "taxi_geo":
        m = base["taxi_q0q5"]
        return ", ".join(f"{math.exp(sum(math.log(t[k] / m[k]) for k in m) / len(m)):.3f}"
                         for t in (r["taxi_q0q5"] for r in procs if "taxi_q0q5" in r))
    if key == "bfs_kron":
        return ", ".join(f"{rate / base[key]:.3f}" for rate, _ in (r[key] for r in procs
                                                                   if key in r))
    return ", ".join(f"{rate / base[key]:.3f} ({steps})" for rate, steps in (r[key] for r in procs
                                                                            if key in r))


print("| engine | engine SMs | " + " | ".join(h for _, h in cols) + " |")
print("|---|---|" + "---|" * len(cols))
for s in ["auto"] + sorted((s for s in rows if s != "auto"), key=int):
    name = "automatic (17 x 16 hw, 16 x 16 emu; scheduler)" if s == "auto" else f"{s} x 4, first SMs"
    sms = "16-17" if s == "auto" else s
    print(f"| {name} | {sms} | " + " | ".join(cell(k, rows[s]) for k, _ in cols) + " |")
