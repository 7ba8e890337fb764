#!/bin/bash
# Call 1 (as run): the GPU tests at 486405d (build/carry/g2.tar.xz: the arbitration tests'
# shared setup, first run on a GPU), then issue 19's table in both protocols with the even
# 10 GiB point at 80 x 4 (g2's nvm-block-bench, the fair claim's engine), then the same table with
# the 128-pair points with the engine as the even point's (EXTRA: 80 x 4 on the first SMs), one
# process a point: which points such a shape as the automatic one would cost.
set -u
T0=$SECONDS
tar xJf build/carry/g2.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
BIN=/tmp/g2 OUT=$OUT/gpu-tests bash scripts/gpu/run-gpu-tests.sh > "$OUT/gpu-tests.txt" 2>&1
echo "== gpu tests rc=$? at $((SECONDS - T0)) s"
(cd "$OUT" && tar czf gpu-tests.tgz gpu-tests gpu-tests.txt nvidia-smi.txt)
P="ideal_4k_8g ideal_512_1g ideal_512_4g optane1_512 optane4_512 optane10_256m optane10_1g optane10_1g_even qd1_null qd1_optane oneqp_null"
EP="ideal_4k_8g ideal_512_1g ideal_512_4g optane1_512 optane4_512 optane10_256m optane10_1g"
EVEN="--set gpu.engine_placement=first-sms --set gpu.engine_blocks=80 --set gpu.engine_warps_per_block=4"
for p in hardware emulator; do
  BIN=/tmp/g2 OUT=$OUT/table PROTOCOL=$p POINTS="$P" bash scripts/gpu/io-path-table.sh \
    > "$OUT/table-$p.txt" 2>&1
  (cd "$OUT" && tar czf table-$p.tgz table/$p table-$p.txt table/nvidia-smi.csv)
  echo "== table $p at $((SECONDS - T0)) s"
  BIN=/tmp/g2 OUT=$OUT/even PROTOCOL=$p POINTS="$EP" EXTRA="$EVEN" \
    bash scripts/gpu/io-path-table.sh > "$OUT/even-$p.txt" 2>&1
  (cd "$OUT" && tar czf even-$p.tgz even/$p even-$p.txt)
  echo "== even $p at $((SECONDS - T0)) s"
done
