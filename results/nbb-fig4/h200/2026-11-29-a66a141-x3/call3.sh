#!/bin/bash
# Prepared 2026-11-29 07:21 (not run): Figure 4 at a66a141 (stageH, as next1.sh), 3 processes per
# SSD count; about 6 minutes. If every point is at least as in 437af2f's run, it goes to
# results/nbb-fig4/h200/<date>-a66a141-x3/ and scripts/plot fig4 redraws the figure.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stageH.tar.xz
T0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv
/usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin $W/stageH --out $OUT/fig4 \
  --gpu h200 --session $(date -u +%F)-a66a141-x3 --stop-after 480 2>&1 | tail -20
echo "== sweep $((SECONDS-T0)) s"
tar -C $OUT -czf $OUT/fig4.tgz fig4 && rm -rf $OUT/fig4
echo "== all $((SECONDS-T0)) s"
