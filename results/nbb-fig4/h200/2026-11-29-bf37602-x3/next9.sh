#!/bin/bash
# Session 2026-11-29 03:25, call 9: the Figure 4 analogue with 3 processes per point
# (configs/sweeps/nbb-fig4.json, `processes`: 3; scripts/sweep of 5154008), bf37602's
# nvm-block-bench (the engine's machine code of the tree's HEAD is the same). About 6-7 minutes.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stage9.tar.xz
T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv
/usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin $W/stage9/new --out $OUT/fig4 \
  --gpu h200 --session 2026-11-29-bf37602-x3 --stop-after 450 2>&1 | tail -20
echo "== sweep $((SECONDS-T0)) s"
tar -C $OUT -czf $OUT/fig4.tgz fig4 && rm -rf $OUT/fig4
echo "== all $((SECONDS-T0)) s"
