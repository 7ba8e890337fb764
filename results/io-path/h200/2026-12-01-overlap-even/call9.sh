#!/bin/bash
# Call 9 (as run): queue rings at an odd page stride (drive_layout: a 64 KiB SQ ring and a 16 KiB
# CQ ring each take one page more, so that the queues' rings do not sit at a power-of-two
# stride) against 854d73b, alternated, 1 round: issue 19's 10 GiB point in both protocols. Call 7
# found the point's rate set by each queue's depth, not by the queues' memory.
set -u
tar xJf build/carry/s5.tar.xz -C build/carry
B=build/carry/s5
O=$OUT/call9
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
for p in hardware emulator; do
  OLD=$B/head NEW=$B/pad ROUNDS=1 OUT=$O/$p TABLE_PROTOCOL=$p POINTS="table_optane10_1g" \
    scripts/gpu/regression-points.sh > "$O/$p.txt" 2>&1
  grep '^==' "$O/$p.txt"
done
tar czf "$OUT/call9.tgz" -C "$OUT" call9
