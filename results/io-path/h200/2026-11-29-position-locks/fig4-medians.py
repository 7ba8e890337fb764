#!/usr/bin/python3
"""Per job of a Figure 4 sweep point: the median rate over every process of each build (the
processes of several sweep folders pooled), its min-max, and its ratio to the first build's.
Usage: fig4-medians.py POINT NAME=folder[,folder...] ...  (POINT: e.g. p004_ssds_ssd_count-10).
As run for calls 4 and 6 of this folder (the sweep's job order: 512 B / 4 KiB, read / write,
threads 1K ... 1M)."""
import gzip
import json
import math
import statistics
import sys

SIZES, OPS, THREADS = (512, 4096), ("read", "write"), (1024, 4096, 16384, 65536, 262144, 1048576)


def processes(folder, point):
    d = json.load(gzip.open(f"{folder}/{point}.processes.json.gz"))
    out = []
    for run in d["runs"]:
        jobs = json.loads(run["report"])["jobs"]
        out.append([j["read"]["iops"] if j["read"]["total_ios"] > 0 else j["write"]["iops"]
                    for j in jobs])
    return d["commit"], out


point, builds = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
data = {}
for name, folders in builds:
    pooled = []
    for f in folders.split(","):
        commit, p = processes(f, point)
        pooled += p
    data[name] = pooled
    print(f"{name}: {commit}, {len(pooled)} processes")
first = builds[0][0]
ratios = {name: [] for name, _ in builds}
print("| job | " + " | ".join(name for name, _ in builds) + " |")
print("|---|" + "---|" * len(builds))
for i in range(len(data[first][0])):
    label = f"{SIZES[i // 12]} {OPS[(i // 6) % 2]} {THREADS[i % 6]}"
    base = statistics.median(p[i] for p in data[first])
    cells = []
    for name, _ in builds:
        v = [p[i] for p in data[name]]
        m = statistics.median(v)
        ratios[name].append(m / base)
        cells.append(f"{m / 1e6:.3f} ({min(v) / 1e6:.2f}-{max(v) / 1e6:.2f}) {m / base:.3f}")
    print(f"| {label} | " + " | ".join(cells) + " |")
for name, r in ratios.items():
    g = math.exp(sum(map(math.log, r)) / len(r))
    print(f"{name}: geometric mean {g:.4f}, lowest {min(r):.3f}, highest {max(r):.3f}")
