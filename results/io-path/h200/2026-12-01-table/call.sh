#!/bin/bash
# Issue 19's table at e1ff784 (8e52572's engine) in both protocols, with the even-service 10 GiB
# point (optane10_1g_even, 64 x 4 on the first SMs) beside the default one; the binary of
# ../2026-12-01-l2-state/ (build/carry/w1.tar.xz's head/). Each protocol's files tarred as it ends.
set -u
T0=$SECONDS
tar xJf build/carry/w1.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
P="ideal_4k_8g ideal_512_1g ideal_512_4g optane1_512 optane4_512 optane10_256m optane10_1g optane10_1g_even qd1_null qd1_optane oneqp_null"
for p in hardware emulator; do
  BIN=/tmp/w1/head OUT=$OUT/table PROTOCOL=$p POINTS="$P" bash scripts/gpu/io-path-table.sh \
    2>&1 | tee "$OUT/table-$p.txt"
  (cd "$OUT" && tar czf table-$p.tgz table/$p table-$p.txt nvidia-smi.txt table/nvidia-smi.csv)
  echo "== $p at $((SECONDS - T0)) s"
done
