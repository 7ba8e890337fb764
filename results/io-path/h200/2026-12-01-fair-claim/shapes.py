#!/usr/bin/env python3
"""Calls 5-6: a row per report of a folder (named protocol-shape-round): the rate with its runs'
min-max, the direct-read ceiling the same process measured over the 10 GiB, the share, p50 /
p99.99 us and their ratio. Usage: shapes.py FOLDER > FOLDER.md (from this folder)."""
import glob
import json
import sys

print("| report | M IOPS (min-max) | ceiling, M/s | share | p50 / p99.99 us | p99.99 / p50 |")
print("|---|---|---|---|---|---|")
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    job = json.load(open(f))["jobs"][0]
    b, pc = job["bamkit"], job["read"]["clat_ns"]["percentile"]
    p50, p9999 = pc["50.000000"], pc["99.990000"]
    r, c = b["iops"] / 1e6, b["ceilings"]["direct_reads_per_s"] / 1e6
    lo, hi = b["repeat"]["iops_min"] / 1e6, b["repeat"]["iops_max"] / 1e6
    print(f"| {f.split('/')[-1][:-5]} | {r:.2f} ({lo:.2f}-{hi:.2f}) | {c:.2f} | {r / c:.3f} "
          f"| {p50 / 1e3:.0f} / {p9999 / 1e3:.0f} | {p9999 / p50:.1f} x |")
