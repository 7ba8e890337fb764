#!/bin/bash
# Session 2026-11-29 02:45, call 4: the engine's copies in flight per warp. d16 / d12 = bf37602
# with engine_copy_depth 16 / 12 (8: bf37602; ptxas 128 / 127 registers, 28 / 16 bytes spilled).
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stage4.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
B=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --ssds 10 --model optane-p5800x --io-size 512 --set storage.media.size_bytes=1073741824)
run() { # name binary protocol threads ios extra...
  local n=$1 b=$2 pr=$3 th=$4 ios=$5; shift 5
  timeout 120 $W/stage4/$b/nvm-block-bench "${B[@]}" --threads $th --ios $ios --set storage.protocol=$pr "$@" --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/t/$n.txt | tail -1)"
  grep -E "ceiling|repeat" $OUT/t/$n.txt | head -4
}
for r in 1 2; do
  run emu_new_$r new emulator 1048576 67108864 --measure-ceilings
  run emu_d16_$r d16 emulator 1048576 67108864 --measure-ceilings
  run emu_d12_$r d12 emulator 1048576 67108864 --measure-ceilings
done
run hw_new new hardware 1048576 67108864 --measure-ceilings
run hw_d16 d16 hardware 1048576 67108864 --measure-ceilings
for b in d16; do for pr in emulator hardware; do
  BIN=$W/stage4/$b OUT=$OUT/t/table_$b PROTOCOL=$pr POINTS="ideal_4k_8g ideal_512_1g ideal_512_4g optane10_256m qd1_null qd1_optane oneqp_null" timeout 150 bash scripts/gpu/io-path-table.sh > $OUT/t/table_${b}_$pr.log 2>&1
  echo "== table $b $pr rc=$? $((SECONDS-T0)) s"
done; done
python3 scripts/gpu/io-path-table.py $OUT/t/table_d16 2>&1 | tail -30
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
