#!/bin/bash
# Prepared 2026-11-29 07:40 (not run): scripts/gpu/probes/handover-keep.patch at a66a141 (keep/,
# host code only: the engine is stageH's) against stageH, the 10-SSD 1 GiB point (emulator
# protocol, 1M threads), 16 x 16 and 32 x 8: the warps' floor 1 instead of 2, and the rate bound
# 2,000 / 4,000 (the default) / 16,000 a second; 2 rounds alternated; about 4 minutes. Does a
# floor of 1 move p99.99 (docs/gpu-engine.md, "Why the handover cannot remove ... tail")?
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stageH.tar.xz && tar -C $W -xJf build/carry/keep.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/k
B=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --io-size 512 --threads 1048576 --measure-ceilings --set storage.protocol=emulator --ssds 10 --model optane-p5800x --set storage.media.size_bytes=1073741824 --ios 67108864)
run() { # name binary shape env...
  local n=$1 b=$2 sh=$3; shift 3
  env "$@" timeout 120 $b "${B[@]}" --set gpu.engine_blocks=${sh%x*} --set gpu.engine_warps_per_block=${sh#*x} --report $OUT/k/$n.json > $OUT/k/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/k/$n.txt | cut -c1-150) given=$(grep -o '"engine_handovers": *[0-9]*' $OUT/k/$n.json | head -1 | grep -o '[0-9]*$') $(grep 'handover probe' $OUT/k/$n.txt | head -1)"
}
for r in 1 2; do
  for sh in 16x16 32x8; do
    run h_${sh}_$r $W/stageH/nvm-block-bench $sh X=1
    run k1_${sh}_$r $W/keep/nvm-block-bench $sh BAM_PROBE_HANDOVER_KEEP=1
  done
done
run k1r2k_16x16 $W/keep/nvm-block-bench 16x16 BAM_PROBE_HANDOVER_KEEP=1 BAM_PROBE_HANDOVER_RATE=2000
run k1r16k_16x16 $W/keep/nvm-block-bench 16x16 BAM_PROBE_HANDOVER_KEEP=1 BAM_PROBE_HANDOVER_RATE=16000
run k2r16k_16x16 $W/keep/nvm-block-bench 16x16 BAM_PROBE_HANDOVER_RATE=16000
tar -C $OUT -czf $OUT/k.tgz k && rm -rf $OUT/k
echo "== all $((SECONDS-T0)) s"
# and the QD1 floor (scripts/gpu/probes/qd1-floor.cu, compiled at a66a141+; a few seconds)
build/carry/qd1-floor 20000 5 > $OUT/qd1-floor.txt 2>&1; cat $OUT/qd1-floor.txt
