#!/bin/bash
# Call 6 (as run): the kept change (the engine's SQ entry loads and data stores evict-first in
# the L2, libcu++'s access_property::streaming), built from the working tree at b17646b plus that
# change (the next commit): the GPU tests; issue 19's table in both protocols; Figure 4's
# 1,024-thread 512 B point and the 10 GiB point against b17646b, 2 rounds; the other points of
# results/ against b17646b, 1 round. Each part's files tarred as it ends.
set -u
tar xJf build/carry/v1.tar.xz -C build/carry
B=build/carry/v1
O=$OUT/call6
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
BIN=$B/new OUT=$O/tests scripts/gpu/run-gpu-tests.sh > "$O/tests.txt" 2>&1
echo "tests rc=$?"; grep '^==' "$O/tests.txt"
tar czf "$OUT/tests.tgz" -C "$OUT" call6/tests call6/tests.txt call6/nvidia-smi.txt
BIN=$B/new OUT=$O/table PROTOCOL=hardware bash scripts/gpu/io-path-table.sh > "$O/table-hw.txt" 2>&1
tar czf "$OUT/table-hw.tgz" -C "$OUT" call6/table call6/table-hw.txt
OLD=$B/base NEW=$B/new ROUNDS=2 OUT=$O/pair TABLE_PROTOCOL=hardware \
  POINTS="f4_512_1024 table_optane10_1g" scripts/gpu/regression-points.sh > "$O/pair.txt" 2>&1
grep '^==' "$O/pair.txt"
tar czf "$OUT/pair.tgz" -C "$OUT" call6/pair call6/pair.txt
BIN=$B/new OUT=$O/table PROTOCOL=emulator bash scripts/gpu/io-path-table.sh > "$O/table-emu.txt" 2>&1
tar czf "$OUT/table-emu.tgz" -C "$OUT" call6/table/emulator call6/table-emu.txt
OLD=$B/base NEW=$B/new ROUNDS=1 OUT=$O/rest \
  POINTS="nbb_ideal_512 nbb_ideal_4096 cb_hot_reuse cb_miss_optane nbb_null_512 cb_cold_ideal_4k f4_4k_4096" \
  scripts/gpu/regression-points.sh > "$O/rest.txt" 2>&1
grep '^==' "$O/rest.txt"
tar czf "$OUT/rest.tgz" -C "$OUT" call6/rest call6/rest.txt
