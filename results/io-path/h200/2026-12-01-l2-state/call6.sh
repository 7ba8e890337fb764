#!/bin/bash
# Call 6 (as run): the even-service 10 GiB point (io-path-table.sh optane10_1g_even, 64 x 4 on the
# first SMs, 7f7c25b's script) with the queue handover on (the default) and off, both protocols,
# 2 rounds alternated, e1ff784's binary.
set -u
T0=$SECONDS
tar xJf build/carry/w1.tar.xz -C /tmp
B=/tmp/w1
O=$OUT/c6
mkdir -p "$O"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
for r in 1 2; do
  for p in hardware emulator; do
    for h in on off; do
      [ $((SECONDS - T0)) -gt 400 ] && continue
      e=""; [ $h = off ] && e="--set gpu.engine_handover=false"
      BIN=$B/head OUT=$O/handover-$h-r$r PROTOCOL=$p POINTS="optane10_1g_even" EXTRA="$e" \
        bash scripts/gpu/io-path-table.sh 2>&1 | sed "s/^/$h r$r /" | tee -a "$O/runs.txt"
    done
  done
done
cd "$OUT" && tar czf c6.tgz c6
echo "all $((SECONDS - T0)) s"
