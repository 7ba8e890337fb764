#!/bin/bash
# Call 3 (as run): the engine's SM share against the application's. The 10 GiB point (10 x
# optane, 1 GiB of pinned media each; both protocols) and taxi-query (100 M rows, 4 x optane,
# pinned media; its default protocol) with the engine as the scheduler's automatic shape and as
# 16, 32, 48, 64, 80 and 96 blocks of 4 warps on the first SMs, one process each, in pairs
# alternated by regression-points.sh (one build, g2: 486405d's tools, the fair claim's engine):
# (automatic, 16), (32, 48), (64, 80), (96, automatic). Raw files in /tmp/raw, tarred into $OUT.
set -u
T0=$SECONDS
tar xJf build/carry/g2.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
shape() {
  [ "$1" = auto ] && return
  echo "--set gpu.engine_placement=first-sms --set gpu.engine_blocks=$1 --set gpu.engine_warps_per_block=4"
}
for proto in hardware emulator; do
  points="table_optane10_1g"
  [ $proto = hardware ] && points="table_optane10_1g taxi_q0q5"
  for pair in "auto 16" "32 48" "64 80" "96 auto"; do
    read -r a b <<< "$pair"
    OLD=/tmp/g2 NEW=/tmp/g2 OUT=$R/$proto-$a-$b ROUNDS=1 OLD_ARGS="$(shape $a)" \
      NEW_ARGS="$(shape $b)" TABLE_PROTOCOL=$proto DATA=/tmp/data POINTS="$points" \
      bash scripts/gpu/regression-points.sh > "$R/$proto-$a-$b.txt" 2>&1
    echo "== $proto $a $b at $((SECONDS - T0)) s"
  done
  (cd $R && tar czf "$OUT/$proto.tgz" $proto-* nvidia-smi.txt)
done
