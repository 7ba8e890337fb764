#!/usr/bin/env python3
"""Call 3: the engine's SM share against the application's. A row per engine shape (the
automatic one, run twice, and 16-96 blocks of 4 warps on the first SMs): the 10 GiB point's share
of the direct-read ceiling its process measured and p99.99 / p50 in each protocol, and
taxi-query's bam rows per second (Q0 at D = 30 with 4 KiB and 512 B lines, and the geometric mean
of its 8 jobs over the automatic shape's two processes' mean). Usage, from this folder:
split.py call3 > call3/split.md"""
import glob
import json
import math
import sys

d = sys.argv[1]


def shape_of(folder, build):
    a, b = folder.split("-")[-2:]
    return a if build == "old" else b


def p(j):
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


rows = {}  # shape -> list of dicts
for proto in ("hardware", "emulator"):
    for folder in sorted(glob.glob(f"{d}/{proto}-*/")):
        folder = folder.rstrip("/")
        for build in ("old", "new"):
            s = shape_of(folder, build)
            r = {}
            r[proto] = p(f"{folder}/table_optane10_1g_{build}_1.json")
            t = glob.glob(f"{folder}/taxi_q0q5_{build}_1.json")
            if t:
                r["taxi"] = taxi(t[0])
            rows.setdefault(s, []).append(r)

base = [r["taxi"] for rs in [rows["auto"]] for r in rs if "taxi" in r]
mean = {k: sum(b[k] for b in base) / len(base) for k in base[0]}
order = ["auto"] + sorted((s for s in rows if s != "auto"), key=int)
print("| engine | engine SMs | 10 GiB hw: share; p99.99 / p50 | 10 GiB emu: share; p99.99 / p50 "
      "| taxi Q0 D=30, M rows/s: 4 KiB / 512 B lines | taxi, 8 jobs: geomean of auto's |")
print("|---|---|---|---|---|---|")
for s in order:
    hw = [r["hardware"] for r in rows[s] if "hardware" in r]
    em = [r["emulator"] for r in rows[s] if "emulator" in r]
    tx = [r["taxi"] for r in rows[s] if "taxi" in r]
    cell = lambda v: ", ".join(f"{a:.3f}; {c / b:.1f} x" for a, b, c in v)
    q = lambda t: f"{t[(4096, 30.0, 'q0')]:.0f} / {t[(512, 30.0, 'q0')]:.0f}"
    g = lambda t: math.exp(sum(math.log(t[k] / mean[k]) for k in mean) / len(mean))
    name = "automatic (17 x 16 hw, 16 x 16 emu; scheduler)" if s == "auto" else f"{s} x 4, first SMs"
    sms = "16-17" if s == "auto" else s
    print(f"| {name} | {sms} | {cell(hw)} | {cell(em)} | {', '.join(q(t) for t in tx)} "
          f"| {', '.join(f'{g(t):.3f}' for t in tx)} |")
