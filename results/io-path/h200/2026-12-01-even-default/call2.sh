#!/bin/bash
# Call 2 (as run): issue 19's table in the hardware protocol again (call 1's did not come back:
# more than 8 files), then the even shape (80 x 4 on the first SMs) against the automatic one,
# alternated in one build (g2: 486405d's tools, the fair claim's engine), 2 rounds, at the points
# with 4 GiB or more of pinned media: 512 B over 4 GiB, 4 KiB over 8 GiB, 10 x optane over 10 GiB
# (hardware protocol; the first and third in the emulator one too) and taxi-query over 100 M rows
# (4 x 1.36 GiB). Raw files in /tmp/raw, each part tarred into $OUT as it ends.
set -u
T0=$SECONDS
tar xJf build/carry/g2.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
P="ideal_4k_8g ideal_512_1g ideal_512_4g optane1_512 optane4_512 optane10_256m optane10_1g optane10_1g_even qd1_null qd1_optane oneqp_null"
BIN=/tmp/g2 OUT=$R/table PROTOCOL=hardware POINTS="$P" bash scripts/gpu/io-path-table.sh \
  > "$R/table-hardware.txt" 2>&1
(cd $R && tar czf "$OUT/table-hardware.tgz" table table-hardware.txt nvidia-smi.txt)
echo "== table hardware at $((SECONDS - T0)) s"
EVEN="--set gpu.engine_placement=first-sms --set gpu.engine_blocks=80 --set gpu.engine_warps_per_block=4"
OLD=/tmp/g2 NEW=/tmp/g2 OUT=$R/ab-hw ROUNDS=2 NEW_ARGS="$EVEN" TABLE_PROTOCOL=hardware \
  DATA=/tmp/data POINTS="table_ideal_512_4g table_ideal_4k_8g table_optane10_1g taxi_q0q5" \
  bash scripts/gpu/regression-points.sh > "$R/ab-hw.txt" 2>&1
(cd $R && tar czf "$OUT/ab-hw.tgz" ab-hw ab-hw.txt)
echo "== ab hardware at $((SECONDS - T0)) s"
OLD=/tmp/g2 NEW=/tmp/g2 OUT=$R/ab-emu ROUNDS=2 NEW_ARGS="$EVEN" TABLE_PROTOCOL=emulator \
  POINTS="table_ideal_512_4g table_optane10_1g" \
  bash scripts/gpu/regression-points.sh > "$R/ab-emu.txt" 2>&1
(cd $R && tar czf "$OUT/ab-emu.tgz" ab-emu ab-emu.txt)
echo "== ab emulator at $((SECONDS - T0)) s"
