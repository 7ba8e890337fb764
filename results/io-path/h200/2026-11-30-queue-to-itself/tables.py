#!/usr/bin/python3
"""The tables of README.md from the calls' reports: QD1 (mean latency, median of 3 processes with
min-max) and threads alone on their queue pairs (M IOPS, median of 2 processes with min-max), held
(gpu.queue_access auto) against shared. Usage: tables.py DIR... (each DIR a cN.tgz unpacked, e.g.
`tar xzf call2/c2.tgz -C /tmp && tables.py /tmp/c2`)."""
import glob
import json
import statistics as st
import sys

for call in sys.argv[1:]:
    print(f"## {call}\n")
    qd1 = {}
    for f in sorted(glob.glob(call + "/qd1-r*-*/*/*.json")):
        parts = f.split("/")
        access, proto, point = parts[-3].split("-")[2], parts[-2], parts[-1][:-5]
        job = json.load(open(f))["jobs"][0]
        lat = job["read"]["clat_ns"]
        pc = lat["percentile"]
        qd1.setdefault((point, proto, access), []).append(
            (lat["mean"] / 1e3, pc["50.000000"] / 1e3, pc["99.990000"] / 1e3,
             job["bamkit"]["stats"]["queue_access"].split(":")[0]))
    print("| point | protocol | access (report) | mean us | p50 us | p99.99 us |")
    print("|---|---|---|---|---|---|")
    for (point, proto, access), v in sorted(qd1.items()):
        m = [x[0] for x in v]
        print(f"| {point} | {proto} | {access} ({v[0][3]}) | {st.median(m):.2f} ({min(m):.2f}-"
              f"{max(m):.2f}) | {st.median(x[1] for x in v):.2f} | {st.median(x[2] for x in v):.2f} |")
    alone = {}
    for f in glob.glob(call + "/alone-r*-*-*/t*.json"):
        parts = f.split("/")
        _, _, access, proto = parts[-2].split("-")
        threads = int(parts[-1][1:-5])
        alone.setdefault((proto, threads, access), []).append(
            json.load(open(f))["jobs"][0]["read"]["iops"] / 1e6)
    print("\n| protocol | threads = queue pairs | shared M IOPS | held M IOPS | held / shared |")
    print("|---|---|---|---|---|")
    for proto, threads, access in sorted(alone):
        if access != "shared":
            continue
        s, h = alone[(proto, threads, "shared")], alone[(proto, threads, "auto")]
        print(f"| {proto} | {threads} | {st.median(s):.2f} ({min(s):.2f}-{max(s):.2f}) | "
              f"{st.median(h):.2f} ({min(h):.2f}-{max(h):.2f}) | {st.median(h) / st.median(s):.2f} |")
    print()
