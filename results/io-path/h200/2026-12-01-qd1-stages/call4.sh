#!/bin/bash
# Call 4 (as run): 71b2303, A alone (build/carry/g9.tar.xz: the hold's CQ head doorbell by
# position, after_completion as at cd66baf; reverted after this call in ef98daf), staged by run-gpu-tests.sh --stage: the GPU tests,
# compute-sanitizer (memcheck, racecheck, synccheck) over the held queues' small cases, the new
# build against cd66baf's (build/carry/old7.tar.xz) alternated over 3 rounds in the hardware
# protocol, then issue 19's table in the hardware protocol. Raw files in /tmp/raw, tarred into $OUT.
set -u
T0=$SECONDS
tar xJf build/carry/g9.tar.xz -C /tmp
tar xJf build/carry/old7.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
BIN=/tmp/g9 OUT=$R/gpu-tests bash scripts/gpu/run-gpu-tests.sh > "$R/gpu-tests.txt" 2>&1
echo "== gpu tests rc=$? at $((SECONDS - T0)) s"
BIN=/tmp/g9 OUT=$R/sanitize TOOLS="memcheck racecheck synccheck" \
  NAMES="host_controller_gpu_test queue_outstanding_gpu_test" bash scripts/gpu/sanitize.sh \
  > "$R/sanitize.txt" 2>&1
echo "== sanitize rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/gpu-tests.tgz" gpu-tests gpu-tests.txt nvidia-smi.txt sanitize sanitize.txt)
OLD=/tmp/old7 NEW=/tmp/g9 OUT=$R/alt ROUNDS=3 TABLE_PROTOCOL=hardware \
  POINTS="table_qd1_null table_qd1_optane table_oneqp_null f4_512_1024 f4_4k_1024 cb_hot_reuse cb_miss_optane" \
  ARGS="--set storage.protocol=hardware" bash scripts/gpu/regression-points.sh > $R/alt.txt 2>&1
echo "== alt rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/alt.tgz" alt alt.txt)
BIN=/tmp/g9 OUT=$R/table PROTOCOL=hardware bash scripts/gpu/io-path-table.sh > "$R/table-hardware.txt" 2>&1
echo "== table hardware rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/table-hardware.tgz" table table-hardware.txt)
