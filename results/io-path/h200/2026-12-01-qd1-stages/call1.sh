#!/bin/bash
# Call 1 (as run): the GPU tests at HEAD (build/carry/g7.tar.xz: cd66baf, staged by
# run-gpu-tests.sh --stage), then QD1 in the hardware protocol split into stages by the probe
# build (g7/probe/nvm-block-bench: qd1-stages.patch, BAM_PROBE_STAGES), then two variants of the
# ordering read's path against HEAD, alternated (regression-points.sh, 3 rounds): A (the held
# queue's CQ head doorbell by position, none at the release) and AB (A, and after_completion's
# loads in flight together, one release fence). Raw files in /tmp/raw, tarred into $OUT.
set -u
T0=$SECONDS
tar xJf build/carry/g7.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
BIN=/tmp/g7 OUT=$R/gpu-tests bash scripts/gpu/run-gpu-tests.sh > "$R/gpu-tests.txt" 2>&1
echo "== gpu tests rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/gpu-tests.tgz" gpu-tests gpu-tests.txt nvidia-smi.txt)
mkdir -p $R/probe
for p in hardware emulator; do
  for pt in qd1_null qd1_optane; do
    # shellcheck disable=SC2046
    /tmp/g7/probe/nvm-block-bench $(PROTOCOL=$p bash scripts/gpu/io-path-table.sh --args $pt) \
      --report $R/probe/$pt-$p.json > $R/probe/$pt-$p.txt 2>&1
    echo "== probe $pt $p rc=$? at $((SECONDS - T0)) s"
  done
done
(cd $R && tar czf "$OUT/probe.tgz" probe)
for v in a ab; do
  OLD=/tmp/g7 NEW=/tmp/g7/$v OUT=$R/alt-$v ROUNDS=3 TABLE_PROTOCOL=hardware \
    POINTS="table_qd1_null table_qd1_optane table_oneqp_null" \
    bash scripts/gpu/regression-points.sh > $R/alt-$v.txt 2>&1
  echo "== alt $v rc=$? at $((SECONDS - T0)) s"
  (cd $R && tar czf "$OUT/alt-$v.tgz" alt-$v alt-$v.txt)
done
