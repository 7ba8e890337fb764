#!/bin/bash
# Call 3 (as run): gpu.queue_choice away (a thread leaves its queue for a random other of its
# SSD after a command over 4 x its block's mean latency so far; a probe, not kept) against fixed,
# one binary, alternated, 2 rounds, at the points of call 2.
set -u
B=build/carry/qc
O=$OUT/call3
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
export OLD=$B NEW=$B ROUNDS=2 NEW_ARGS="--set gpu.queue_choice=away"
OUT=$O/hw TABLE_PROTOCOL=hardware POINTS="f4_512_1024 f4_512_4096 table_optane10_1g table_ideal_512_4g f4_512_1048576" \
  scripts/gpu/regression-points.sh > "$O/hw.txt" 2>&1
OUT=$O/emu TABLE_PROTOCOL=emulator POINTS="table_optane10_1g" \
  scripts/gpu/regression-points.sh > "$O/emu.txt" 2>&1
tar czf "$OUT/call3.tgz" -C "$OUT" call3
