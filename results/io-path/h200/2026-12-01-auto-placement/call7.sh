#!/bin/bash
# Call 7 (as run): 1e592b9's code (g6, as call 6). Figure 4's 8-SSD 512 B reads at 1K threads (the
# lowest changed point of call 4's sweep, 0.984 of 6d414cc's), auto (the even engine) against the
# scheduler's placement, 3 rounds alternated; then 512 B reads over 1 and 1.5 GiB (one ideal SSD,
# the ideal_512_4g point's arguments with the media size changed: under the line of 2 GiB, so auto
# is the scheduler's) against the even engine given explicitly, 2 rounds, both protocols: what the
# line leaves out. Raw files in /tmp/raw, tarred.
set -u
T0=$SECONDS
tar xJf build/carry/g6.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R/line
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
F4_SSDS=8 OLD=/tmp/g6 NEW=/tmp/g6 OUT=$R/f4-8 ROUNDS=3 \
  OLD_ARGS="--set gpu.engine_placement=scheduler" POINTS="f4_512_1024" \
  bash scripts/gpu/regression-points.sh > "$R/f4-8.txt" 2>&1
echo "== f4 at $((SECONDS - T0)) s"
EVEN="--set gpu.engine_placement=first-sms --set gpu.engine_blocks=80 --set gpu.engine_warps_per_block=4"
for p in hardware emulator; do
  base=$(PROTOCOL=$p bash scripts/gpu/io-path-table.sh --args ideal_512_4g)
  for mib in 1024 1536; do
    a=${base/size_bytes=4294967296/size_bytes=$((mib * 1048576))}
    for round in 1 2; do
      for shape in auto even; do
        extra=""
        [ $shape = even ] && extra=$EVEN
        f=$R/line/$p-${mib}m-$shape-$round
        # shellcheck disable=SC2086
        timeout 300 /tmp/g6/nvm-block-bench $a $extra --report $f.json > $f.txt 2>&1
        echo "== $p ${mib}m $shape $round rc=$? $(grep -E '^  (read|total)' $f.txt | tail -n 1)"
      done
    done
  done
done > "$R/line.txt" 2>&1
echo "== line at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/call7.tgz" f4-8 f4-8.txt line line.txt nvidia-smi.txt)
