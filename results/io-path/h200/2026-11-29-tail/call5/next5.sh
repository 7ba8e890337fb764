#!/bin/bash
# Session 2026-11-29 03:00, call 5: which engine blocks the slow queues sit on. tprobe4 = tprobe3
# + per engine block: its SM (%smid), turns, turns with a batch, entries taken, mean time of a
# turn with a batch, and the slow fraction of its queues' sampled fetches (>= 128 us).
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stage5.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
B=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --ssds 10 --model optane-p5800x --io-size 512 --set storage.media.size_bytes=1073741824)
run() { # name protocol extra...
  local n=$1 pr=$2; shift 2
  timeout 120 $W/stage5/tprobe4/nvm-block-bench "${B[@]}" --threads 1048576 --ios 67108864 --set storage.protocol=$pr "$@" --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/t/$n.txt | tail -1)"
  grep "tail probe" $OUT/t/$n.txt | tail -40 | grep -v "some \|by lane"
}
run emu_b16_a emulator
run emu_b16_b emulator
run emu_b32 emulator --set gpu.engine_blocks=32
run hw_b16 hardware
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
