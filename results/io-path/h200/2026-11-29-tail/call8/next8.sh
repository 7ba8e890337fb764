#!/bin/bash
# Session 2026-11-29 03:15, call 8: which step of an engine turn takes the slow blocks' time.
# tprobe6 = tprobe5 + per block the mean time of each step of a turn with a batch (claim, fetch,
# book, move, park, post), and the blockers counted once per block (tprobe5 counted threads).
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stage8.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
B=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --io-size 512 --threads 1048576)
O10=(--ssds 10 --model optane-p5800x --set storage.media.size_bytes=1073741824 --ios 67108864)
I4=(--model ideal --set storage.media.size_bytes=4294967296 --ios 16777216)
run() { # name blockers protocol extra...
  local n=$1 nb=$2 pr=$3; shift 3
  BAM_PROBE_BLOCKERS=$nb timeout 120 $W/stage8/tprobe6/nvm-block-bench "${B[@]}" --set storage.protocol=$pr "$@" --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/t/$n.txt | tail -1)"
  grep "tail probe" $OUT/t/$n.txt | grep -E "blockers|phases|deciles" | tail -18 | cut -c13-
}
run emu10_b0 0 emulator "${O10[@]}"
run emu10_b8 8 emulator "${O10[@]}"
run emu4g_b0 0 emulator "${I4[@]}"
run hw10_b0 0 hardware "${O10[@]}"
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
