#!/bin/bash
# Call 2 (as run): the new default (gpu.engine_placement auto: nvm-block-bench's even engine, 80 x
# 4 on the first SMs, over 4 GiB or more of pinned media) against the scheduler's placement given
# explicitly (the old default, 16 x 16 / 17 x 16), alternated in one build (g4 = 8a0db45's tools),
# 2 rounds, at the table's points with 4 GiB or more of pinned media, in both protocols; then 512 B
# over 2 and 3 GiB (one ideal SSD), auto (= the scheduler's, under 4 GiB) against the even engine
# given explicitly, 2 rounds: where the line of 4 GiB stands. Raw files in /tmp/raw, tarred.
set -u
T0=$SECONDS
tar xJf build/carry/g4.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
for p in hardware emulator; do
  OLD=/tmp/g4 NEW=/tmp/g4 OUT=$R/ab-$p ROUNDS=2 OLD_ARGS="--set gpu.engine_placement=scheduler" \
    TABLE_PROTOCOL=$p POINTS="table_ideal_512_4g table_ideal_4k_8g table_optane10_1g" \
    bash scripts/gpu/regression-points.sh > "$R/ab-$p.txt" 2>&1
  (cd $R && tar czf "$OUT/ab-$p.tgz" ab-$p ab-$p.txt nvidia-smi.txt)
  echo "== ab $p at $((SECONDS - T0)) s"
done
EVEN="--set gpu.engine_placement=first-sms --set gpu.engine_blocks=80 --set gpu.engine_warps_per_block=4"
mkdir -p $R/line
for p in hardware emulator; do
  base=$(PROTOCOL=$p bash scripts/gpu/io-path-table.sh --args ideal_512_4g)
  for gib in 2 3; do
    a=${base/size_bytes=4294967296/size_bytes=$((gib * 1073741824))}
    for round in 1 2; do
      for shape in auto even; do
        extra=""
        [ $shape = even ] && extra=$EVEN
        f=$R/line/$p-${gib}g-$shape-$round
        # shellcheck disable=SC2086
        timeout 300 /tmp/g4/nvm-block-bench $a $extra --report $f.json > $f.txt 2>&1
        echo "== $p ${gib}g $shape $round rc=$? $(grep -E '^  (read|total)' $f.txt | tail -n 1)"
      done
    done
  done
done > "$R/line.txt" 2>&1
(cd $R && tar czf "$OUT/line.tgz" line line.txt)
echo "== line at $((SECONDS - T0)) s"
