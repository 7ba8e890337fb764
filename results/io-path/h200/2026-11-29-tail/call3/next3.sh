#!/bin/bash
# Session 2026-11-29 02:50, call 3: the pending table's size. tprobe3 = tprobe2 + a count of the
# lane polls that found their warp's pending table full; p256 = bf37602 with pending_per_warp 256
# (ptxas: 128 registers, 16 bytes spilled); p256_probe = the probe on p256.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stage3.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
B=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --ssds 10 --model optane-p5800x --io-size 512 --set storage.media.size_bytes=1073741824)
run() { # name binary protocol threads ios extra...
  local n=$1 b=$2 pr=$3 th=$4 ios=$5; shift 5
  timeout 120 $W/stage3/$b/nvm-block-bench "${B[@]}" --threads $th --ios $ios --set storage.protocol=$pr "$@" --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/t/$n.txt | tail -1)"
  grep -E "ceiling|repeat" $OUT/t/$n.txt | head -4
  grep "tail probe" $OUT/t/$n.txt | tail -10
}
for r in 1 2; do
  run emu_new_$r new emulator 1048576 67108864 --measure-ceilings
  run emu_p256_$r p256 emulator 1048576 67108864 --measure-ceilings
done
run emu_tprobe3 tprobe3 emulator 1048576 67108864
run emu_p256_probe p256_probe emulator 1048576 67108864
run hw_new new hardware 1048576 67108864 --measure-ceilings
run hw_p256 p256 hardware 1048576 67108864 --measure-ceilings
for b in new p256; do for pr in emulator hardware; do
  BIN=$W/stage3/$b OUT=$OUT/t/table_$b PROTOCOL=$pr POINTS="qd1_null qd1_optane oneqp_null optane10_256m ideal_512_4g" timeout 100 bash scripts/gpu/io-path-table.sh > $OUT/t/table_${b}_$pr.log 2>&1
  echo "== table $b $pr rc=$? $((SECONDS-T0)) s"
done; done
python3 scripts/gpu/io-path-table.py $OUT/t/table_new 2>&1 | tail -30
python3 scripts/gpu/io-path-table.py $OUT/t/table_p256 2>&1 | tail -30
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
