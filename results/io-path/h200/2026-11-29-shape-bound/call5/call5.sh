#!/bin/bash
# Session of 2026-11-29 (06:35-), call 5: Figure 4 at aa4383f (stageF, as call 4), each SSD count
# as 3 processes (configs/sweeps/nbb-fig4.json). About 6-7 minutes.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stageF.tar.xz
T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv
/usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin $W/stageF --out $OUT/fig4 \
  --gpu h200 --session 2026-11-29-aa4383f-x3 --stop-after 480 2>&1 | tail -20
echo "== sweep $((SECONDS-T0)) s"
tar -C $OUT -czf $OUT/fig4.tgz fig4 && rm -rf $OUT/fig4
echo "== all $((SECONDS-T0)) s"
