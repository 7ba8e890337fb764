#!/bin/bash
# Call 2 (as run): gpu.queue_choice shorter with a warp's margin (32) against fixed, one binary,
# alternated, 2 rounds: the points where call 1 lost (Figure 4 at 1K-4K threads) and issue 19's
# 10 GiB and 4 GiB points, hardware protocol; the 10 GiB point in the emulator protocol.
set -u
B=build/carry/qc
O=$OUT/call2
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
BIN=$B OUT=$O/tests TESTS=nbb_gpu_test TEST_TIMEOUT=300 scripts/gpu/run-gpu-tests.sh > "$O/tests.txt" 2>&1
export OLD=$B NEW=$B ROUNDS=2 NEW_ARGS="--set gpu.queue_choice=shorter"
OUT=$O/hw TABLE_PROTOCOL=hardware POINTS="f4_512_1024 f4_512_4096 table_optane10_1g table_ideal_512_4g f4_512_1048576 f4_4k_65536" \
  scripts/gpu/regression-points.sh > "$O/hw.txt" 2>&1
OUT=$O/emu TABLE_PROTOCOL=emulator POINTS="table_optane10_1g" \
  scripts/gpu/regression-points.sh > "$O/emu.txt" 2>&1
tar czf "$OUT/call2.tgz" -C "$OUT" call2
