#!/bin/bash
# Call 2 (as run): the GPU tests at the new commit (build/carry/g8.tar.xz, staged by
# run-gpu-tests.sh --stage), compute-sanitizer (memcheck, racecheck, synccheck: scripts/gpu/sanitize.sh
# over host_controller_gpu_test's small cases, the held ordering reads among them, and
# queue_outstanding_gpu_test's, a held queue among them), then the new build against HEAD's (call 1's g7 tools,
# build/carry/old7.tar.xz) alternated at the points the ordering read's path touches most (QD1,
# one queue pair, Figure 4's 10-SSD reads at 1K / 4K threads), hardware protocol. Raw files in
# /tmp/raw, tarred into $OUT.
set -u
T0=$SECONDS
tar xJf build/carry/g8.tar.xz -C /tmp
tar xJf build/carry/old7.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
BIN=/tmp/g8 OUT=$R/gpu-tests bash scripts/gpu/run-gpu-tests.sh > "$R/gpu-tests.txt" 2>&1
echo "== gpu tests rc=$? at $((SECONDS - T0)) s"
BIN=/tmp/g8 OUT=$R/sanitize TOOLS="memcheck racecheck synccheck" \
  NAMES="host_controller_gpu_test queue_outstanding_gpu_test" bash scripts/gpu/sanitize.sh \
  > "$R/sanitize.txt" 2>&1
echo "== sanitize rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/gpu-tests.tgz" gpu-tests gpu-tests.txt nvidia-smi.txt sanitize sanitize.txt)
OLD=/tmp/old7 NEW=/tmp/g8 OUT=$R/alt ROUNDS=3 TABLE_PROTOCOL=hardware \
  POINTS="table_qd1_null table_qd1_optane table_oneqp_null f4_512_1024 f4_512_4096 f4_4k_1024" \
  ARGS="--set storage.protocol=hardware" bash scripts/gpu/regression-points.sh > $R/alt.txt 2>&1
echo "== alt rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/alt.tgz" alt alt.txt)
