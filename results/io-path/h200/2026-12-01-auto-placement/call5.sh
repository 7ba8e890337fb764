#!/bin/bash
# Call 5 (as run): Figure 4's points that call 4 read 1-2 % lower than 6d414cc's sweep at 8 and 10
# SSDs x 256 MiB (512 B reads at 1K and 4K threads; one process each there), and its 4 KiB reads
# at 1K threads (3 % higher), with auto (the even engine over 2 GiB and more) against the scheduler's
# placement given explicitly, alternated in one build (g5 = b2af7b0's tools), 3 rounds, hardware
# protocol (the sweep's). Raw files in /tmp/raw, tarred.
set -u
T0=$SECONDS
tar xJf build/carry/g5.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
for n in 10 8; do
  pts="f4_512_1024 f4_512_4096 f4_4k_1024"
  [ $n = 8 ] && pts="f4_512_4096"
  F4_SSDS=$n OLD=/tmp/g5 NEW=/tmp/g5 OUT=$R/f4-$n ROUNDS=3 \
    OLD_ARGS="--set gpu.engine_placement=scheduler" POINTS="$pts" \
    bash scripts/gpu/regression-points.sh > "$R/f4-$n.txt" 2>&1
  echo "== f4 $n at $((SECONDS - T0)) s"
done
(cd $R && tar czf "$OUT/f4ab.tgz" f4-* nvidia-smi.txt)
