#!/bin/bash
# Session of 2026-11-29 (06:35-), call 2. Call 1's table (2e22c25's code, stageN) read the 10-SSD
# 1 GiB emulator point at 36.03 M where 437af2f read 37.43-37.46 (previous session, call 3): is it
# d11b914/2e22c25's engine (the pool's CAS put, take_queue) or the call? 437af2f (a437) against
# 2e22c25 (stageN) alternated, handover on/off; and engine shapes 64 x 4 / 32 x 8 with handover off
# and on (64 x 4 with handover on lost 7 % at the hardware 1 GiB ideal point in call 1).
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stageN.tar.xz && tar -C $W -xJf build/carry/a437.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
B=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --io-size 512 --threads 1048576 --measure-ceilings)
O10=(--ssds 10 --model optane-p5800x --set storage.media.size_bytes=1073741824 --ios 67108864)
I1=(--model ideal --set storage.media.size_bytes=1073741824 --ios 8388608)
run() { # name bin proto shape handover args...
  local n=$1 b=$2 pr=$3 sh=$4 ho=$5; shift 5
  timeout 120 $b "${B[@]}" --set storage.protocol=$pr --set gpu.engine_blocks=${sh%x*} --set gpu.engine_warps_per_block=${sh#*x} --set gpu.engine_handover=$ho "$@" --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/t/$n.txt | tail -1 | cut -c1-90) | $(grep -E 'ceiling|direct' $OUT/t/$n.txt | head -2 | cut -c1-100 | tr '\n' '|')"
}
A=$W/a437/nvm-block-bench; N=$W/stageN/tests/nvm-block-bench
for r in 1 2; do
  run e10_a_on_$r $A emulator 16x16 true "${O10[@]}"
  run e10_n_on_$r $N emulator 16x16 true "${O10[@]}"
  run e10_a_off_$r $A emulator 16x16 false "${O10[@]}"
  run e10_n_off_$r $N emulator 16x16 false "${O10[@]}"
  run e10_n64_off_$r $N emulator 64x4 false "${O10[@]}"
  run e10_n64_on_$r $N emulator 64x4 true "${O10[@]}"
  run e10_n32_on_$r $N emulator 32x8 true "${O10[@]}"
done
run h10_n_on $N hardware 16x16 true "${O10[@]}"
run h10_n64_off $N hardware 64x4 false "${O10[@]}"
run h10_n32_on $N hardware 32x8 true "${O10[@]}"
run h1_n32_on $N hardware 32x8 true "${I1[@]}"
run h1_n64_off $N hardware 64x4 false "${I1[@]}"
run h1_n64_on $N hardware 64x4 true "${I1[@]}"
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
