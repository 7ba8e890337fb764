#!/bin/bash
# Call 5 of the exclusive queue access: the probe scripts/gpu/probes/ordering-hold-outlined.patch (the §4.4
# ordering read's holder holds its drive's own ordering queue, out of line, fallbacks narrow) against dff7c2f (call 3's build),
# alternated, 2 rounds, at QD1 and at points whose hardware-protocol kernels the patch changes
# (nvm-block-bench's shared kernel, Figure 4 jobs, the cache's miss and hot paths, the 10 GiB
# point). Storage protocol: hardware (the default) everywhere. Run from the repository root with
# the old build in $OLD_DIR (call 3's nvm-block-bench and cache-bench) and the probe's nvm-block-bench and
# cache-bench in $NEW_DIR.
set -u
O=$OUT/c5
mkdir -p "$O"
OLD=${OLD_DIR:-build/carry/o4} NEW=${NEW_DIR:-build/carry/p5} OUT=$O ROUNDS=2 \
  POINTS="table_qd1_null table_qd1_optane nbb_null_512 f4_512_1024 f4_4k_1024 f4_512_4096 cb_miss_optane cb_hot_reuse table_optane10_1g" \
  bash scripts/gpu/regression-points.sh > "$O/points.txt" 2>&1
echo "points rc=$?"
/usr/bin/python3 scripts/gpu/regression-table.py "$O" > "$O/table.md" 2>&1
cat "$O/table.md"
cd "$OUT" && tar czf c5.tgz c5 && rm -rf c5
