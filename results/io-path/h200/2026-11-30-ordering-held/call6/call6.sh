#!/bin/bash
# Call 6 of the ordering read through a hold: the one-queue-pair point (issue 19's oneqp_null:
# 1K / 64K / 1M threads on one queue pair of 1024, null drive, hardware protocol), which call 5's
# table read 4.7 % lower at 1K threads with the new build; new (fe6fe75's code) against old
# (dff7c2f), 3 rounds alternated (regression-points.sh). Run from the repository root with
# build/carry/h5.tar.xz carried (new/ and old/: nvm-block-bench; cache-bench is not used).
set -u
O=$OUT/c6
B=/tmp/h5
mkdir -p "$O" "$B"
tar xJf build/carry/h5.tar.xz -C "$B"
OLD=$B/old NEW=$B/new OUT=$O/points ROUNDS=3 POINTS="table_oneqp_null" \
  bash scripts/gpu/regression-points.sh > "$O/points.txt" 2>&1
echo "points rc=$?"
/usr/bin/python3 scripts/gpu/regression-table.py "$O/points" > "$O/table.md" 2>&1
cat "$O/table.md"
for f in "$O"/points/*.json; do
  echo "$(basename "$f"): $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print([(j['bamkit']['config']['workload']['threads'], round(j['bamkit']['stats']['ordering_reads_per_read'], 4), round(j['read']['iops'] / 1e6, 3)) for j in d['jobs']])" "$f" 2>&1)"
done
cd "$OUT" && tar czf c6.tgz c6 && rm -rf c6
