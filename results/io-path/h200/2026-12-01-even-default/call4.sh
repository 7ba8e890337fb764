#!/bin/bash
# Call 4 (as run): the GPU tests of the build without claim_entries' redundant `cap != 0`
# (build/carry/g3.tar.xz, staged by run-gpu-tests.sh --stage), then its nvm-block-bench against
# 6d414cc's (build/carry/f4.tar.xz, the fair claim's engine with the test) at QD1 null and the even
# 10 GiB point in the hardware protocol, alternated, one round. Raw files in /tmp/raw, tarred.
set -u
T0=$SECONDS
tar xJf build/carry/g3.tar.xz -C /tmp
tar xJf build/carry/f4.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
BIN=/tmp/g3 OUT=$R/gpu-tests bash scripts/gpu/run-gpu-tests.sh > "$R/gpu-tests.txt" 2>&1
echo "== gpu tests rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/gpu-tests.tgz" gpu-tests gpu-tests.txt nvidia-smi.txt)
OLD=/tmp/f4 NEW=/tmp/g3 OUT=$R/ab ROUNDS=1 TABLE_PROTOCOL=hardware \
  POINTS="table_qd1_null table_optane10_1g_even" bash scripts/gpu/regression-points.sh \
  > "$R/ab.txt" 2>&1
echo "== ab rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/ab.tgz" ab ab.txt)
