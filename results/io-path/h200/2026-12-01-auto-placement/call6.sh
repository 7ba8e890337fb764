#!/bin/bash
# Call 6 (as run): 1e592b9's code (build/carry/g6.tar.xz, built from its tree before it was
# committed: the review's changes, the even engine decided once, 80 x 4 at every point measured
# before): the GPU tests, then regression-points' nbb_ideal_4096 (4 KiB reads over 2 GiB of
# pinned media, now the even engine) and table_optane10_1g against the scheduler's placement,
# alternated, 2 rounds, hardware protocol. Raw files in /tmp/raw, tarred.
set -u
T0=$SECONDS
tar xJf build/carry/g6.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
BIN=/tmp/g6 OUT=$R/gpu-tests bash scripts/gpu/run-gpu-tests.sh > "$R/gpu-tests.txt" 2>&1
echo "== gpu tests rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/gpu-tests.tgz" gpu-tests gpu-tests.txt nvidia-smi.txt)
OLD=/tmp/g6 NEW=/tmp/g6 OUT=$R/ab ROUNDS=2 OLD_ARGS="--set gpu.engine_placement=scheduler" \
  TABLE_PROTOCOL=hardware POINTS="nbb_ideal_4096 table_optane10_1g" \
  bash scripts/gpu/regression-points.sh > "$R/ab.txt" 2>&1
echo "== ab at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/ab.tgz" ab ab.txt)
