#!/bin/bash
# Session 2026-11-29 (10:17-13:17), call B. nextB.tar.xz: C/ = every GPU test and tool built with
# the ordering queues on warps of their own (ordering-warps.patch, committed) and the waiter's
# sleep capped by its queue's commands (qd1-backoff); W/ = nvm-block-bench of the ordering warps
# alone. 1) every GPU test of C; 2) W and C alternated, 2 rounds: QD1 null and optane, one queue
# pair, 10 GiB (emulator protocol) and QD1 null (hardware); 3) issue 19's table of C, both protocols.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/nextB.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
O=$OUT/b; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $O/nvidia-smi.csv 2>&1
BIN=$W/C OUT=$O/tests bash scripts/gpu/run-gpu-tests.sh > $O/tests.log 2>&1
echo "== tests rc=$? $((SECONDS-T0)) s"; grep -E "^== |FAILED" $O/tests.log | head -30
for r in 1 2; do
  for b in W C; do
    [ $((SECONDS-T0)) -gt 330 ] && break
    BIN=$W/$b OUT=$O/alt_${b}_$r PROTOCOL=emulator POINTS="qd1_null qd1_optane oneqp_null optane10_1g" bash scripts/gpu/io-path-table.sh > $O/alt_${b}_$r.log 2>&1
    BIN=$W/$b OUT=$O/alt_${b}_$r PROTOCOL=hardware POINTS="qd1_null" bash scripts/gpu/io-path-table.sh >> $O/alt_${b}_$r.log 2>&1
    echo "== alt $b $r $((SECONDS-T0)) s"; grep -E "^== " $O/alt_${b}_$r.log | cut -c1-150
  done
done
for proto in emulator hardware; do
  [ $((SECONDS-T0)) -gt 480 ] && { echo "== table $proto skipped"; continue; }
  BIN=$W/C OUT=$O/table PROTOCOL=$proto bash scripts/gpu/io-path-table.sh > $O/table_$proto.log 2>&1
  echo "== table $proto $((SECONDS-T0)) s"; grep -E "^== " $O/table_$proto.log | cut -c1-150
done
tar -C $OUT -czf $OUT/b.tgz b && rm -rf $O
echo "== all $((SECONDS-T0)) s"
