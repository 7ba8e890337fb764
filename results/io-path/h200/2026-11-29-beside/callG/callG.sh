#!/bin/bash
# Session 2026-11-29 (12:43-15:43), call G: scripts/gpu/probes/qd1-placement.cu (built on the dev
# machine: nvcc -O3 -std=c++20 -arch=sm_90), 20,000 signals x 5 launches per line, the default
# block counts, controller in the first and the last block; twice.
set -u
export CUDA_MODULE_LOADING=EAGER
O=$OUT/g; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $O/nvidia-smi.csv 2>&1
for r in 1 2; do
  build/carry/n5/qd1-placement 20000 5 > $O/placement_$r.txt 2>&1
  echo "== round $r rc=$?"; cut -c1-120 $O/placement_$r.txt
done
tar -C $OUT -czf $OUT/g.tgz g && rm -rf $O
