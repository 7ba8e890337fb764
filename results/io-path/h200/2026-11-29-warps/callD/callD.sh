#!/bin/bash
# Session 2026-11-29 (10:17-13:17), call D: issue 19's table at a7a2066 (W/ of nextC.tar.xz: the
# drives' ordering queues on engine warps of their own), both protocols, one process a point.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/nextC.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
O=$OUT/d; mkdir -p $O
for proto in emulator hardware; do
  BIN=$W/W OUT=$O/table PROTOCOL=$proto bash scripts/gpu/io-path-table.sh > $O/table_$proto.log 2>&1
  echo "== table $proto $((SECONDS-T0)) s"; grep -E "^== " $O/table_$proto.log | cut -c1-150
done
tar -C $OUT -czf $OUT/d.tgz d && rm -rf $O
echo "== all $((SECONDS-T0)) s"
