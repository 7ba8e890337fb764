#!/usr/bin/env python3
"""Each report of a glob (quoted): its rate (M IOPS), its share of the direct-read ceiling its
process measured over the same footprint, p50 / p99.99 us and their ratio, and the engine that ran
(the report's resolved engine_placement and engine_blocks). Run from this folder:
    python3 tails.py 'call*/ab-*/*optane10_1g*.json' > call2/tails-10g.txt
    python3 tails.py 'call1/table/*/optane10_1g*.json' > call1/tails-10g.txt
"""
import glob
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / 'scripts' / 'pylib'))
import reports  # noqa: E402

for f in sorted(glob.glob(sys.argv[1])):
    d = reports.load(f)
    cfg, j, b = reports.jobs(d)[0]
    c = reports.ceilings(d, b) or {}
    p50 = reports.percentile_us(j, '50.000000'); p9999 = reports.percentile_us(j, '99.990000')
    st = b['stats']; io = reports.total_iops(j); dr = c.get('direct_reads_per_s')
    print(f, f"{io/1e6:.2f}", f"{io/dr:.3f}" if dr else "-", f"{p50:.0f} {p9999:.0f} {p9999/p50:.1f}x", st.get('engine_placement'), st.get('engine_blocks'))
