#!/bin/bash
# Session 2026-11-29 03:10, call 7: the GPU tests of 015e209 (the drive-table test's launch of one
# thread per drive had not run on a GPU), and d4 = bf37602 with engine_copy_depth 4 (half the
# engine's host reads in flight: does the host-read path leave saturation, and with it the SMs'
# unequal share?); d4probe = tprobe5 with depth 4.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stage7.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
BIN=$W/stage7/tests OUT=$OUT/t/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/t/tests.log 2>&1
echo "== tests rc=$? $((SECONDS-T0)) s"; grep -E "^== |PASSED|FAILED" $OUT/t/tests.log | head -30
B=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --io-size 512 --threads 1048576)
O10=(--ssds 10 --model optane-p5800x --set storage.media.size_bytes=1073741824 --ios 67108864)
I4=(--model ideal --set storage.media.size_bytes=4294967296 --ios 16777216)
run() { # name binary protocol extra...
  local n=$1 b=$2 pr=$3; shift 3
  timeout 120 $W/stage7/$b/nvm-block-bench "${B[@]}" --set storage.protocol=$pr "$@" --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/t/$n.txt | tail -1)"
  grep -E "repeat" $OUT/t/$n.txt | head -2
  grep "tail probe" $OUT/t/$n.txt | grep -E "blk |deciles" | tail -17 | cut -c13-
}
for r in 1 2; do
  run emu10_new_$r new emulator "${O10[@]}" --measure-ceilings
  run emu10_d4_$r d4 emulator "${O10[@]}" --measure-ceilings
done
run emu10_d4probe d4probe emulator "${O10[@]}"
run emu4g_new new emulator "${I4[@]}" --measure-ceilings
run emu4g_d4 d4 emulator "${I4[@]}" --measure-ceilings
run hw10_d4 d4 hardware "${O10[@]}" --measure-ceilings
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
