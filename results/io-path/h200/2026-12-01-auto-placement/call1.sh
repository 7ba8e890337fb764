#!/bin/bash
# Call 1 (as run): the GPU tests at 8a0db45 (build/carry/g4.tar.xz, staged by run-gpu-tests.sh
# --stage: gpu.engine_placement auto, nvm-block-bench's even engine over 4 GiB or more of pinned
# media), the qd1-floor probe (with the system-scope command and the hardware protocol's read +
# ordering read), then issue 19's whole table in both protocols with the new defaults (one process
# a point; optane10_1g is now the even engine by default, optane10_1g_even the same shape given
# explicitly). Raw files in /tmp/raw, each part tarred into $OUT as it ends (8 files come back).
set -u
T0=$SECONDS
tar xJf build/carry/g4.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
/tmp/g4/qd1-floor 20000 5 > "$R/qd1-floor.txt" 2>&1
echo "== qd1-floor rc=$? at $((SECONDS - T0)) s"
BIN=/tmp/g4 OUT=$R/gpu-tests bash scripts/gpu/run-gpu-tests.sh > "$R/gpu-tests.txt" 2>&1
echo "== gpu tests rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/gpu-tests.tgz" gpu-tests gpu-tests.txt nvidia-smi.txt qd1-floor.txt)
P="ideal_4k_8g ideal_512_1g ideal_512_4g optane1_512 optane4_512 optane10_256m optane10_1g optane10_1g_even qd1_null qd1_optane oneqp_null"
for p in hardware emulator; do
  BIN=/tmp/g4 OUT=$R/table PROTOCOL=$p POINTS="$P" bash scripts/gpu/io-path-table.sh \
    > "$R/table-$p.txt" 2>&1
  (cd $R && tar czf "$OUT/table-$p.tgz" table/$p table-$p.txt)
  echo "== table $p at $((SECONDS - T0)) s"
done
