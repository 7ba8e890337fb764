#!/bin/bash
# Call 1 (as run): the overlap variants B2 (engine-next-overlap.patch) and B1
# (engine-book-overlap.patch), rebased on 854d73b, against 854d73b's build, with the engine's
# blocks on the first SMs (gpu.engine_placement first-sms: even shares of the host reads) and with
# the scheduler's placement; issue 19's 10 GiB and 4 GiB points, alternated, 2 rounds.
set -u
tar xJf build/carry/s1.tar.xz -C build/carry
B=build/carry/s1
O=$OUT/call1
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
fs="--set gpu.engine_placement=first-sms"
run() {  # name new protocol args points
  ARGS="$4" OLD=$B/head NEW=$B/$2 ROUNDS=2 OUT=$O/$1 TABLE_PROTOCOL=$3 POINTS="$5" \
    scripts/gpu/regression-points.sh > "$O/$1.txt" 2>&1
}
run fs-b2-hw b2 hardware "$fs" "table_optane10_1g table_ideal_512_4g"
run fs-b2-emu b2 emulator "$fs" "table_optane10_1g"
run fs-b1-hw b1 hardware "$fs" "table_optane10_1g"
run sched-b2-hw b2 hardware "" "table_optane10_1g f4_512_1024 f4_512_4096"
run fs-b1-emu b1 emulator "$fs" "table_optane10_1g"
tar czf "$OUT/call1.tgz" -C "$OUT" call1
