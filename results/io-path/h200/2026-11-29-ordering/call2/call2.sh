#!/bin/bash
# Prepared 2026-11-29 07:21 for the next session's first device call (not run). stageH = every GPU
# test binary and tool built at a66a141 (engine of a96e641: the handover words' start in one store,
# never run on a GPU; default 16 x 16 with the handover's rate bound). 1) every GPU test; 2) issue
# 19's table in both protocols at the default (the final default's table was never taken);
# 3) configs/sweeps/engine-shape.json (never run). About 6-7 minutes. Carry ["build/carry"], sparse
# checkout: git sparse-checkout set --no-cone '/*' '!/results/nbb-fig4/' '!/results/cache-bench-hot/'
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stageH.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $OUT/t/nvidia-smi.csv 2>&1
BIN=$W/stageH OUT=$OUT/t/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/t/tests.log 2>&1
echo "== tests rc=$? $((SECONDS-T0)) s"; grep -E "^== |FAILED|given away|handovers" $OUT/t/tests.log | head -40
for proto in emulator hardware; do
  BIN=$W/stageH OUT=$OUT/t/table PROTOCOL=$proto bash scripts/gpu/io-path-table.sh
  echo "== table $proto $((SECONDS-T0)) s"
done
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
/usr/bin/python3 scripts/sweep configs/sweeps/engine-shape.json --bin $W/stageH --out $OUT/shape --gpu h200 \
  --session $(date -u +%F)-a66a141 --stop-after $((560 - SECONDS)) 2>&1 | tail -20
tar -C $OUT -czf $OUT/shape.tgz shape && rm -rf $OUT/shape
echo "== all $((SECONDS-T0)) s"
