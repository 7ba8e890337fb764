#!/bin/bash
# The applications against issue 19's baseline build: taxi-query, bfs and cc built at 51665de
# (old) and at ba3b1b4 (new), stripped and carried in build/carry/a2.tar.xz (base/, new/; new/
# holds the bam-data that makes the data), alternated, 2 rounds (scripts/gpu/regression-points.sh's
# application points): taxi-query over 50 M rows, bfs and cc on the Kronecker graph of scale 23;
# storage protocol hardware (the default in both builds). Run from the repository root.
set -u
B=/tmp/a2
mkdir -p "$B"
tar xJf build/carry/a2.tar.xz -C "$B"
t0=$SECONDS
OLD=$B/base NEW=$B/new OUT=$OUT/ab ROUNDS=2 TAXI_ROWS=50000000 GRAPH_SCALE=23 DATA=/tmp/a2data \
  POINTS="taxi_q0q5 bfs_kron cc_kron" timeout 450 bash scripts/gpu/regression-points.sh \
  > "$OUT/points.txt" 2>&1
echo "points rc=$? $((SECONDS - t0)) s"
cat "$OUT/points.txt"
/usr/bin/python3 scripts/gpu/regression-table.py "$OUT/ab" > "$OUT/table.md" 2>&1
cat "$OUT/table.md"
grep -h -E "verify|FAILED|run failed" "$OUT"/ab/*.txt | sort | uniq -c
cd "$OUT" && tar czf ab.tgz ab points.txt table.md && rm -rf ab
