#!/bin/bash
# Call 1 (as run): the GPU tests of nvm-block-bench, then gpu.queue_choice fixed (old) against
# shorter (new), one binary, alternated, 2 rounds, at issue 19's 10 GiB, 4 GiB and 1 GiB points
# and Figure 4's 10 x 512 B / 4 KiB reads, hardware protocol, and the 10 GiB and 4 GiB points in
# the emulator protocol.
set -u
B=build/carry/qc
O=$OUT/call1
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
BIN=$B OUT=$O/tests TESTS=nbb_gpu_test TEST_TIMEOUT=300 scripts/gpu/run-gpu-tests.sh > "$O/tests.txt" 2>&1
export OLD=$B NEW=$B ROUNDS=2 NEW_ARGS="--set gpu.queue_choice=shorter"
OUT=$O/hw TABLE_PROTOCOL=hardware POINTS="table_optane10_1g table_ideal_512_4g table_ideal_512_1g f4_512_1024 f4_512_65536 f4_512_1048576 f4_4k_65536" \
  scripts/gpu/regression-points.sh > "$O/hw.txt" 2>&1
OUT=$O/emu TABLE_PROTOCOL=emulator POINTS="table_optane10_1g table_ideal_512_4g" \
  scripts/gpu/regression-points.sh > "$O/emu.txt" 2>&1
tar czf "$OUT/call1.tgz" -C "$OUT" call1
