#!/bin/bash
# Call 1 (as run): the GPU tests and issue 19's whole table in both protocols with the binaries of
# ef98daf (build/carry/g10.tar.xz, staged by run-gpu-tests.sh --stage from the dev machine's
# build/default), whose lib/, tests/ and tools/ are the final code's (cd66baf's; HEAD changed
# only docs, results, scripts and build flags of host code since). One process a point. Raw files
# in /tmp/raw, each part tarred into $OUT as it ends (8 files come back).
set -u
T0=$SECONDS
tar xJf build/carry/g10.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
BIN=/tmp/g10 OUT=$R/gpu-tests bash scripts/gpu/run-gpu-tests.sh > "$R/gpu-tests.txt" 2>&1
echo "== gpu tests rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/gpu-tests.tgz" gpu-tests gpu-tests.txt nvidia-smi.txt)
P="ideal_4k_8g ideal_512_1g ideal_512_4g optane1_512 optane4_512 optane10_256m optane10_1g optane10_1g_even qd1_null qd1_optane oneqp_null"
for p in hardware emulator; do
  BIN=/tmp/g10 OUT=$R/table PROTOCOL=$p POINTS="$P" bash scripts/gpu/io-path-table.sh \
    > "$R/table-$p.txt" 2>&1
  (cd $R && tar czf "$OUT/table-$p.tgz" table/$p table-$p.txt)
  echo "== table $p at $((SECONDS - T0)) s"
done
