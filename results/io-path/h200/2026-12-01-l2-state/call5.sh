#!/bin/bash
# Call 5 (as run): the even-service 10 GiB point (io-path-table.sh optane10_1g_even: the engine on
# the first SMs) in 32 x 8 blocks (as committed, 5c1cc27) against 64 x 4, both protocols, 3 rounds
# alternated, e1ff784's binary.
set -u
T0=$SECONDS
tar xJf build/carry/w1.tar.xz -C /tmp
B=/tmp/w1
O=$OUT/c5
mkdir -p "$O"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
for r in 1 2 3; do
  for p in hardware emulator; do
    for s in 32x8 64x4; do
      [ $((SECONDS - T0)) -gt 540 ] && continue
      e=""; [ $s = 64x4 ] && e="--set gpu.engine_blocks=64 --set gpu.engine_warps_per_block=4"
      BIN=$B/head OUT=$O/$s-r$r PROTOCOL=$p POINTS="optane10_1g_even" EXTRA="$e" \
        bash scripts/gpu/io-path-table.sh 2>&1 | sed "s/^/$s r$r /" | tee -a "$O/runs.txt"
    done
  done
done
cd "$OUT" && tar czf c5.tgz c5
echo "all $((SECONDS - T0)) s"
