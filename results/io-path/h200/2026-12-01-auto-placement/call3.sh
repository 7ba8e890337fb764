#!/bin/bash
# Call 3 (as run): the 4 KiB point over 8 GiB (the PCIe link's) with the new default (auto: the
# even engine) against the scheduler's placement given explicitly, alternated in one build (g4 =
# 8a0db45's tools), 4 rounds a protocol: calls 1 and 2 had the hardware protocol's even runs at
# 0.974-1.002 of the scheduler's, below the baseline's 12.50 M in two of three processes.
# Raw files in /tmp/raw, tarred.
set -u
T0=$SECONDS
tar xJf build/carry/g4.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
for p in hardware emulator; do
  OLD=/tmp/g4 NEW=/tmp/g4 OUT=$R/ab4k-$p ROUNDS=4 OLD_ARGS="--set gpu.engine_placement=scheduler" \
    TABLE_PROTOCOL=$p POINTS="table_ideal_4k_8g" \
    bash scripts/gpu/regression-points.sh > "$R/ab4k-$p.txt" 2>&1
  (cd $R && tar czf "$OUT/ab4k-$p.tgz" ab4k-$p ab4k-$p.txt nvidia-smi.txt)
  echo "== ab4k $p at $((SECONDS - T0)) s"
done
