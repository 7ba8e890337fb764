#!/bin/bash
# Call 3 (as run): the QD1 points again on a fresh machine, each as 3 processes in both
# protocols, ef98daf's binaries (build/carry/g10.tar.xz): how much of call 1's hardware QD1 (16.7
# us against 15.4 at the same code on 2026-12-01's earlier machines) is the machine.
set -u
T0=$SECONDS
tar xJf build/carry/g10.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw3
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
for i in 1 2 3; do
  for p in hardware emulator; do
    BIN=/tmp/g10 OUT=$R/qd1-$i PROTOCOL=$p POINTS="qd1_null qd1_optane oneqp_null" \
      bash scripts/gpu/io-path-table.sh > "$R/qd1-$i-$p.txt" 2>&1
  done
  echo "== round $i at $((SECONDS - T0)) s"
done
(cd $R && tar czf "$OUT/qd1.tgz" .)
