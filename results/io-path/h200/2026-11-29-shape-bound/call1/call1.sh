#!/bin/bash
# Session of 2026-11-29 (06:35-), call 1. stageN/tests = every GPU test binary and tool of 2e22c25's code
# (built from the uncommitted tree just before 2e22c25: reports say eb16ca5-dirty). 1) HEAD's GPU tests.
# 2) issue 19's table (scripts/gpu/io-path-table.sh) in both protocols, engine shape 16 x 16 (default)
# and 64 x 4, handover on (default); 3) 128 x 2 at the key points, time allowing.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stageN.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $OUT/t/nvidia-smi.csv 2>&1
nvidia-smi -q > $OUT/t/nvidia-smi-q.txt 2>&1
BIN=$W/stageN/tests OUT=$OUT/t/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/t/tests.log 2>&1
echo "== tests rc=$? $((SECONDS-T0)) s"; grep -E "^== |FAILED|given away" $OUT/t/tests.log | head -60
tar -C $OUT -czf $OUT/tests.tgz t && rm -rf $OUT/t
for shape in 16x16 64x4; do
  nb=${shape%x*}; wpb=${shape#*x}
  for proto in emulator hardware; do
    BIN=$W/stageN/tests OUT=$OUT/tab_$shape PROTOCOL=$proto EXTRA="--set gpu.engine_blocks=$nb --set gpu.engine_warps_per_block=$wpb" bash scripts/gpu/io-path-table.sh
    echo "== $shape $proto $((SECONDS-T0)) s"
  done
  tar -C $OUT -czf $OUT/tab_$shape.tgz tab_$shape && rm -rf $OUT/tab_$shape
done
if [ $((SECONDS-T0)) -lt 480 ]; then
  for proto in emulator hardware; do
    BIN=$W/stageN/tests OUT=$OUT/tab_128x2 PROTOCOL=$proto POINTS="optane10_1g ideal_512_4g" EXTRA="--set gpu.engine_blocks=128 --set gpu.engine_warps_per_block=2" bash scripts/gpu/io-path-table.sh
  done
  tar -C $OUT -czf $OUT/tab_128x2.tgz tab_128x2 && rm -rf $OUT/tab_128x2
fi
echo "== all $((SECONDS-T0)) s"
