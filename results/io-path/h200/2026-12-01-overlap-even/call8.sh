#!/bin/bash
# Call 8 (as run): the engine's copies with an L2 evict-first policy (E1: its host reads, E2: its
# host reads and its stores to the destination), against 854d73b, alternated: issue 19's 10 GiB
# point in both protocols (2 rounds), the 4 GiB point and Figure 4's 10 x 512 B reads at 1K
# threads (1 round). Do the engine's own reads, flowing through the L2, crowd out the queues' lines?
set -u
tar xJf build/carry/s4.tar.xz -C build/carry
B=build/carry/s4
O=$OUT/call8
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
run() {  # name new protocol rounds points
  OLD=$B/head NEW=$B/$2 ROUNDS=$4 OUT=$O/$1 TABLE_PROTOCOL=$3 POINTS="$5" \
    scripts/gpu/regression-points.sh > "$O/$1.txt" 2>&1
  grep '^==' "$O/$1.txt"
}
run e1-hw e1 hardware 2 "table_optane10_1g"
run e1-emu e1 emulator 2 "table_optane10_1g"
run e2-hw e2 hardware 1 "table_optane10_1g"
run e2-emu e2 emulator 1 "table_optane10_1g"
run e1-other e1 hardware 1 "table_ideal_512_4g f4_512_1024"
tar czf "$OUT/call8.tgz" -C "$OUT" call8
