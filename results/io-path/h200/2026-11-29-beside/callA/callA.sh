#!/bin/bash
# Session 2026-11-29 (12:43-15:43), call A: 8ffa220 (C/ of n1.tar.xz: the drives' ordering warps
# beside the application's by default). 1) every GPU test; 2) issue 19's table, both protocols,
# one process a point.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/n1.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
O=$OUT/a; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $O/nvidia-smi.csv 2>&1
BIN=$W/C OUT=$O/tests bash scripts/gpu/run-gpu-tests.sh > $O/tests.log 2>&1
echo "== tests rc=$? $((SECONDS-T0)) s"; grep -E "^== |FAILED" $O/tests.log | head -30
for proto in emulator hardware; do
  BIN=$W/C OUT=$O/table PROTOCOL=$proto bash scripts/gpu/io-path-table.sh > $O/table_$proto.log 2>&1
  echo "== table $proto $((SECONDS-T0)) s"; grep -E "^== " $O/table_$proto.log | cut -c1-150
done
tar -C $OUT -czf $OUT/a.tgz a && rm -rf $O
echo "== all $((SECONDS-T0)) s"
