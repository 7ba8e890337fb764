#!/usr/bin/env python3
"""line.md: call 2's 512 B reads over 2 and 3 GiB of pinned media (one ideal SSD), gpu.engine_placement
auto (the scheduler's 16 x 16 under 4 GiB) against the even engine given explicitly (80 x 4 on the
first SMs), 2 rounds: each process's median run, its share of the direct-read ceiling the same
process measured over the same footprint, its p50 and p99.99 and the engine the report says
ran. Run from this folder: python3 line.py > line.md; with a folder, that folder's line/ (call 7:
python3 line.py ../call7 > ../call7/line.md).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[5] / "scripts" / "pylib"))
import reports  # noqa: E402

print("| protocol | media | engine | round | M IOPS | of the direct-read ceiling | p50 us | p99.99 us | "
      "p99.99 / p50 | engine that ran |")
print("|---|---|---|---|---|---|---|---|---|---|")
folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
for f in sorted(folder.glob("line/*.json")):
    protocol, media, shape, rnd = f.stem.split("-")
    cfg, job, b = reports.jobs(reports.load(f))[0]
    p50 = reports.percentile_us(job, "50.000000")
    p9999 = reports.percentile_us(job, "99.990000")
    st = b["stats"]
    ceiling = (reports.ceilings(reports.load(f), b) or {}).get("direct_reads_per_s")
    share = f"{reports.total_iops(job) / ceiling:.3f}" if ceiling else "-"
    ran = f"{st['engine_blocks']} x {st['engine_warps'] // st['engine_blocks']}, {st['engine_placement']}"
    print(f"| {protocol} | {media[:-1]} {'GiB' if media.endswith('g') else 'MiB'} | {shape} | {rnd} | "
          f"{reports.total_iops(job) / 1e6:.2f} | {share} | {p50:.0f} | {p9999:.0f} | {p9999 / p50:.1f} x | {ran} |")
