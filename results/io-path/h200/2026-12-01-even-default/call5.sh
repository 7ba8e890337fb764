#!/bin/bash
# Call 5 (as run): call 3's split again in the hardware protocol for the automatic shape and 16,
# 48 and 80 blocks of 4 warps on the first SMs (the 10 GiB point and taxi-query), now with bfs and
# cc too (the Kronecker graph of scale 23, 4 x optane with pinned media), in pairs alternated by
# regression-points.sh (one build: f418603's tools, build/carry/g3.tar.xz): (automatic, 16),
# (48, 80). Raw files in /tmp/raw, tarred into $OUT.
set -u
T0=$SECONDS
tar xJf build/carry/g3.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
shape() {
  [ "$1" = auto ] && return
  echo "--set gpu.engine_placement=first-sms --set gpu.engine_blocks=$1 --set gpu.engine_warps_per_block=4"
}
for pair in "auto 16" "48 80"; do
  read -r a b <<< "$pair"
  OLD=/tmp/g3 NEW=/tmp/g3 OUT=$R/hardware-$a-$b ROUNDS=1 OLD_ARGS="$(shape $a)" \
    NEW_ARGS="$(shape $b)" TABLE_PROTOCOL=hardware DATA=/tmp/data \
    POINTS="table_optane10_1g taxi_q0q5 bfs_kron cc_kron" \
    bash scripts/gpu/regression-points.sh > "$R/hardware-$a-$b.txt" 2>&1
  echo "== $a $b at $((SECONDS - T0)) s"
  (cd $R && tar czf "$OUT/split.tgz" hardware-* nvidia-smi.txt)
done
