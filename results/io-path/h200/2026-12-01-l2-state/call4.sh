#!/bin/bash
# Call 4 (as run): issue 19's 10 GiB point and its even-service form (io-path-table.sh's
# optane10_1g and optane10_1g_even) in both protocols, 2 rounds, e1ff784's binary; the engine on
# the first SMs in 64 x 4 blocks, one process a protocol; copy-ceiling beside polls of 1 GiB (each
# a miss) at lower rates than call 3's, and of 16 MiB (L2-resident) at call 3's lowest rate.
set -u
T0=$SECONDS
tar xJf build/carry/w1.tar.xz -C /tmp
B=/tmp/w1
O=$OUT/c4
mkdir -p "$O"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
el() { echo "== $1 at $((SECONDS - T0)) s"; }
for r in 1 2; do
  for p in hardware emulator; do
    BIN=$B/head OUT=$O/table-r$r PROTOCOL=$p POINTS="optane10_1g optane10_1g_even" \
      bash scripts/gpu/io-path-table.sh 2>&1 | tee -a "$O/table.txt"
  done
done
(cd "$OUT" && tar czf table.tgz c4/table-r1 c4/table-r2 c4/table.txt c4/nvidia-smi.txt)
el table
mkdir -p "$O/fs64"
for p in hardware emulator; do
  BIN=$B/head OUT=$O/fs64 PROTOCOL=$p POINTS="optane10_1g_even" \
    EXTRA="--set gpu.engine_blocks=64 --set gpu.engine_warps_per_block=4" \
    bash scripts/gpu/io-path-table.sh 2>&1 | tee -a "$O/fs64.txt"
done
(cd "$OUT" && tar czf fs64.tgz c4/fs64 c4/fs64.txt)
el fs64
left=$((585 - (SECONDS - T0)))
if [ $left -gt 60 ]; then
  nvcc -O3 -std=c++20 -arch=sm_90 -Ilib/include -o /tmp/copy-ceiling scripts/gpu/probes/copy-ceiling.cu \
    > "$O/beside-build.txt" 2>&1 && \
  timeout $((585 - (SECONDS - T0))) /tmp/copy-ceiling beside 3 none poll:1024:1000000 \
    poll:1024:400000 poll:1024:150000 poll:16:65536 none > "$O/beside.txt" 2>&1
  echo "beside rc=$?"; cat "$O/beside.txt"
  (cd "$OUT" && tar czf beside.tgz c4/beside.txt c4/beside-build.txt)
fi
el all
