#!/bin/bash
# Prepared 2026-11-29 03:45 for the next session's first device call (not run yet): does the
# engine's SM saturation at the 10-SSD 1 GiB and 4 GiB points follow the warps per SM?
# (docs/gpu-engine.md, "The engine's saturated SMs": with 16 blocks x 16 warps, the blocks on
# SMs 124, 125, 130, 131 take 216 us a turn against 27 elsewhere.) The same 256 engine warps as
# 16 x 16 (default), 32 x 8, 64 x 4, and 128 warps as 16 x 8. new = bf37602's nvm-block-bench;
# tprobe7 = 015e209 + scripts/gpu/probes/engine-turn-probe.patch of 98d8c02 (per-block lines
# by the engine's block count). About 3 minutes.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stageNext.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
B=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --io-size 512 --threads 1048576 --set storage.protocol=emulator)
O10=(--ssds 10 --model optane-p5800x --set storage.media.size_bytes=1073741824 --ios 67108864)
I4=(--model ideal --set storage.media.size_bytes=4294967296 --ios 16777216)
run() { # name binary blocks warps_per_block extra...
  local n=$1 b=$2 nb=$3 wpb=$4; shift 4
  timeout 120 $W/stageNext/$b/nvm-block-bench "${B[@]}" --set gpu.engine_blocks=$nb --set gpu.engine_warps_per_block=$wpb "$@" --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/t/$n.txt | tail -1)"
  grep "tail probe" $OUT/t/$n.txt | grep -E "blk |deciles" | tail -66 | cut -c13- | awk '{print}' | head -70
}
for shape in "16 16" "32 8" "64 4" "16 8"; do
  set -- $shape
  run emu10_new_$1x$2 new $1 $2 "${O10[@]}" --measure-ceilings
  run emu10_probe_$1x$2 tprobe7 $1 $2 "${O10[@]}"
done
for shape in "16 16" "32 8" "64 4"; do
  set -- $shape
  run emu4g_new_$1x$2 new $1 $2 "${I4[@]}" --measure-ceilings
done
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
