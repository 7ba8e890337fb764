#!/bin/bash
# Prepared 2026-11-29 01:30 for the next session's first device call (not run yet): where the
# emulator protocol's slow mode at the 10-SSD 1 GiB point waits. tprobe = bf37602 with
# scripts/gpu/probes/tail-probe.patch (histograms of a sampled command's spans: SQ entry written
# -> fetched, fetched -> due, due -> posted); new = bf37602 as committed (the rate and latency
# without the probe's timer reads). Emulator and hardware protocols, 16 and 32 engine blocks.
# About 2 minutes.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stageNext.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
B=(--backend emulated --pairs 128 --depth 1024 --threads 1048576 --outstanding 1 --repeat 3 --ssds 10 --model optane-p5800x --io-size 512 --set storage.media.size_bytes=1073741824 --ios 67108864)
for pr in emulator hardware; do for eb in 16 32; do for b in new tprobe; do
  n=${pr}_b${eb}_$b
  timeout 90 $W/stageNext/$b/nvm-block-bench "${B[@]}" --set storage.protocol=$pr --set gpu.engine_blocks=$eb --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/t/$n.txt | tail -1)"
  grep "tail probe" $OUT/t/$n.txt | tail -3
done; done; done
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
