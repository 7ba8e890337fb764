#!/usr/bin/env python3
"""baseline-vs-now.md: a table.json (this folder's unless named) against issue 19's baseline
table (51665de), matched by protocol, point and threads. Run from the repository root:
    python3 results/io-path/h200/2026-12-01-table/baseline-vs-now.py [TABLE_JSON [LABEL
      [BASE_JSON BASE_LABEL]]] > <that table's folder>/baseline-vs-now.md
LABEL names the new table's build in the header (default e1ff784, this folder's); BASE_JSON and
BASE_LABEL put another table in the baseline's place.
"""
import json
import sys

D = "results/io-path/h200/"
base = json.load(open(sys.argv[3] if len(sys.argv) > 3 else D + "2026-11-25-51665de/table.json"))
base_label = sys.argv[4] if len(sys.argv) > 4 else "baseline 51665de"
new = json.load(open(sys.argv[1] if len(sys.argv) > 1 else D + "2026-12-01-table/table.json"))
label = sys.argv[2] if len(sys.argv) > 2 else "e1ff784"


def key(r):
    return (r["protocol"], r["point"], r["threads"])


def m(v):
    return f"{v / 1e6:.4f}" if v < 1e6 else f"{v / 1e6:.3f}"


b = {key(r): r for r in base}
print(f"| protocol | point | threads | {base_label}, M IOPS (min-max) | {label}, M IOPS (min-max)"
      " | new / old | mean latency us, old / new | p99.99 us, old / new |")
print("|---|---|---|---|---|---|---|---|")
for r in new:
    now = f"{m(r['iops'])} ({m(r['iops_min'])}-{m(r['iops_max'])})"
    o = b.get(key(r))
    if o is None:  # a point the baseline did not have
        print(f"| {r['protocol']} | {r['point']} | {r['threads']} | - | {now} | - "
              f"| - / {r['lat_mean_us']:.1f} | - / {r['lat_p9999_us']:.1f} |")
        continue
    print(f"| {r['protocol']} | {r['point']} | {r['threads']} "
          f"| {m(o['iops'])} ({m(o['iops_min'])}-{m(o['iops_max'])}) | {now} "
          f"| {r['iops'] / o['iops']:.3f} | {o['lat_mean_us']:.1f} / {r['lat_mean_us']:.1f} "
          f"| {o['lat_p9999_us']:.1f} / {r['lat_p9999_us']:.1f} |")
