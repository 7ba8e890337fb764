#!/bin/bash
# Session of 2026-11-29 (06:35-), call 4: at aa4383f (the handover's rate bound, the automatic
# engine shape 32 x 8), built on the dev machine, stripped and carried (stageF): 1) every GPU test;
# 2) issue 19's table in both protocols (scripts/gpu/io-path-table.sh, defaults); 3) Figure 4 (scripts/sweep configs/sweeps/nbb-fig4.json, 3 processes per SSD count)
# in call 5.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stageF.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $OUT/t/nvidia-smi.csv 2>&1
BIN=$W/stageF OUT=$OUT/t/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/t/tests.log 2>&1
echo "== tests rc=$? $((SECONDS-T0)) s"; grep -E "^== |FAILED|given away" $OUT/t/tests.log | head -40
for proto in emulator hardware; do
  BIN=$W/stageF OUT=$OUT/t/table PROTOCOL=$proto bash scripts/gpu/io-path-table.sh
  echo "== table $proto $((SECONDS-T0)) s"
done
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
