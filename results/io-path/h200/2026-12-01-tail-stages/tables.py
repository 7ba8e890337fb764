#!/usr/bin/env python3
"""Tables of this folder's runs (tables.md): each nvm-block-bench report's rate, share of the
ceiling its process measured, latency and engine shape; and the stage-times probe's last run
(of 3) per point of calls 3 and 4. Usage: tables.py [folder] > tables.md"""
import glob
import json
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else sys.path[0]


def runs(call):
    print(f"\n## call {call}\n")
    print("| run | M IOPS median (min-max) | share of the ceiling | p50 / p99.99 us "
          "| p99.99 / p50 | handovers | engine blocks x warps |")
    print("|---|---|---|---|---|---|---|")
    for f in sorted(glob.glob(f"{root}/call{call}/*/*.json")):
        j = json.load(open(f))["jobs"][0]
        b, s = j["bamkit"], j["bamkit"]["stats"]
        ce, r = b.get("ceilings", {}), b["repeat"]
        p = j["read"]["lat_ns"]["percentile"]
        name = "/".join(f.split("/")[-2:])[:-5]
        shape = f"{s['engine_blocks']} x {s['engine_warps'] // s['engine_blocks']}"
        p50, p9999 = p["50.000000"] / 1e3, p["99.990000"] / 1e3
        if "qd1" in name:
            print(f"| {name} | mean latency {j['read']['lat_ns']['mean'] / 1e3:.2f} us | - "
                  f"| {p50:.1f} / {p9999:.1f} | - | - | {shape} |")
            continue
        share = f"{b['iops'] / ce['direct_reads_per_s']:.3f}" if ce else "-"
        print(f"| {name} | {r['iops_median'] / 1e6:.2f} ({r['iops_min'] / 1e6:.2f}-"
              f"{r['iops_max'] / 1e6:.2f}) | {share} | {p50:.0f} / {p9999:.0f} "
              f"| {p9999 / p50:.1f} | {s.get('engine_handovers', 0)} | {shape} |")


LINE = re.compile(r"probe (all|slow) +(\S+) +n +(\d+) mean +([\d.]+) us: p50 +([\d.]+) "
                  r"p90 +([\d.]+) p99 +([\d.]+) p99.9 +([\d.]+) p99.99 +([\d.]+) max +([\d.]+)")


def stages(call):
    print(f"\n## call {call}: stage times, us (the last of the 3 runs)\n")
    print("| point | set | stage | commands | mean | p50 | p99 | p99.99 |")
    print("|---|---|---|---|---|---|---|---|")
    for f in sorted(glob.glob(f"{root}/call{call}/stages/*.txt")):
        lines = [m for m in map(LINE.search, open(f)) if m]
        n_stages = len({m.group(2) for m in lines})
        for m in lines[-2 * n_stages:]:
            print(f"| {f.split('/')[-1][:-4]} | {m.group(1)} | {m.group(2)} | {m.group(3)} "
                  f"| {m.group(4)} | {m.group(5)} | {m.group(7)} | {m.group(9)} |")


for c in (1, 2, 5, 6):
    runs(c)
for c in (3, 4):
    stages(c)
