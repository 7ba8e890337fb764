#!/bin/bash
# Call 4 (as run): which half of E2 (the engine's copies with an L2 evict-first policy) gives its
# gain at 4 GiB and 10 GiB, and which costs Figure 4's 1,024-thread 512 B point 4 %: E1 (the
# host loads only, scripts/gpu/probes/engine-l2-evict-first.patch), E3 (the GPU stores only,
# engine-l2-evict-first-stores-only.patch) and E2 (both), each against b17646b, 1 round, with two
# cache-bench points whose threads read the data the engine moved.
set -u
tar xJf build/carry/t5.tar.xz -C build/carry
B=build/carry/t5
O=$OUT/call4
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
for v in e1 e3 e2; do
  OLD=$B/base NEW=$B/$v ROUNDS=1 OUT=$O/$v TABLE_PROTOCOL=hardware \
    POINTS="table_optane10_1g table_ideal_512_4g f4_512_1024 cb_cold_ideal_4k cb_miss_optane" \
    scripts/gpu/regression-points.sh > "$O/$v.txt" 2>&1
  grep '^==' "$O/$v.txt"
done
tar czf "$OUT/call4.tgz" -C "$OUT" call4
