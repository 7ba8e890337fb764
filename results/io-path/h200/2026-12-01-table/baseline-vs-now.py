#!/usr/bin/env python3
"""baseline-vs-now.md: this folder's table.json against issue 19's baseline table (51665de),
matched by protocol, point and threads. Run from the repository root:
    python3 results/io-path/h200/2026-12-01-table/baseline-vs-now.py > <that folder>/baseline-vs-now.md
"""
import json

D = "results/io-path/h200/"
base = json.load(open(D + "2026-11-25-51665de/table.json"))
new = json.load(open(D + "2026-12-01-table/table.json"))


def key(r):
    return (r["protocol"], r["point"], r["threads"])


def m(v):
    return f"{v / 1e6:.4f}" if v < 1e6 else f"{v / 1e6:.3f}"


b = {key(r): r for r in base}
print("| protocol | point | threads | baseline 51665de, M IOPS (min-max) | e1ff784, M IOPS (min-max)"
      " | new / baseline | mean latency us, baseline / new | p99.99 us, baseline / new |")
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
