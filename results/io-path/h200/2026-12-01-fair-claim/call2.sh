#!/bin/bash
# Call 2 (as run): issue 19's table in both protocols with the even 10 GiB point, HEAD's build
# (e0b3dcf's tools, the fair claim; build/carry/g1.tar.xz, staged by run-gpu-tests.sh --stage),
# then the GPU tests (with BackloggedQueuesShareATurn). Each part tarred as it ends.
set -u
T0=$SECONDS
tar xJf build/carry/g1.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
P="ideal_4k_8g ideal_512_1g ideal_512_4g optane1_512 optane4_512 optane10_256m optane10_1g optane10_1g_even qd1_null qd1_optane oneqp_null"
for p in hardware emulator; do
  BIN=/tmp/g1 OUT=$OUT/table PROTOCOL=$p POINTS="$P" bash scripts/gpu/io-path-table.sh \
    > "$OUT/table-$p.txt" 2>&1
  (cd "$OUT" && tar czf table-$p.tgz table/$p table-$p.txt nvidia-smi.txt table/nvidia-smi.csv)
  echo "== $p at $((SECONDS - T0)) s"
done
BIN=/tmp/g1 OUT=$OUT/gpu-tests bash scripts/gpu/run-gpu-tests.sh > "$OUT/gpu-tests.txt" 2>&1
echo "== gpu tests rc=$? at $((SECONDS - T0)) s"
(cd "$OUT" && tar czf gpu-tests.tgz gpu-tests gpu-tests.txt)
