#!/bin/bash
# Session 2026-11-29 (04:06-07:06), call 4: the Figure 4 analogue with 3 processes per point
# (configs/sweeps/nbb-fig4.json) at 437af2f: queue handover on (the default). About 6-7 minutes.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stage4.tar.xz
T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv
/usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin $W/stage4/ho --out $OUT/fig4 \
  --gpu h200 --session 2026-11-29-437af2f-x3 --stop-after 450 2>&1 | tail -20
echo "== sweep $((SECONDS-T0)) s"
tar -C $OUT -czf $OUT/fig4.tgz fig4 && rm -rf $OUT/fig4
echo "== all $((SECONDS-T0)) s"
