#!/bin/bash
# Call 1 of the SQ fetch covers: every GPU test binary of the new build (5e67663 with the SQ fetch
# cover in the working tree: ordering_read_ref::after_completion's `via`), then new against old
# (5e67663's GPU code, staged at fe6fe75: the commits between changed host code only) in the
# hardware protocol, 2 rounds alternated (regression-points.sh): issue 19's 10 GiB, 4 GiB, one
# queue pair and QD1 points, the cache's cold misses and hot reuse, the 128-queue null point and
# Figure 4's 10 x 512 B reads at 1K and 16K threads. Run from the repository root with
# build/carry/q1.tar.xz carried (new/: tests and tools; old/: nvm-block-bench, cache-bench).
set -u
O=$OUT/c1
B=/tmp/q1
mkdir -p "$O" "$B"
tar xJf build/carry/q1.tar.xz -C "$B"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
t0=$SECONDS
BIN=$B/new OUT=$O/tests bash scripts/gpu/run-gpu-tests.sh > "$O/tests.txt" 2>&1
echo "tests rc=$? $((SECONDS - t0)) s"
tail -20 "$O/tests.txt"
t0=$SECONDS
OLD=$B/old NEW=$B/new OUT=$O/points ROUNDS=2 POINTS="table_optane10_1g table_ideal_512_4g \
table_oneqp_null table_qd1_null cb_miss_optane cb_hot_reuse nbb_null_512 f4_512_1024 f4_512_16384" \
  bash scripts/gpu/regression-points.sh > "$O/points.txt" 2>&1
echo "points rc=$? $((SECONDS - t0)) s"
/usr/bin/python3 scripts/gpu/regression-table.py "$O/points" > "$O/table.md" 2>&1
cat "$O/table.md"
for f in "$O"/points/*.json; do
  echo "$(basename "$f"): $(python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
for j in d.get('jobs', []):
  b=j.get('bamkit', {}); s=b.get('stats', {})
  print(b.get('config', {}).get('workload', {}).get('threads'), s.get('ordering_reads_per_read'), round(j['read']['iops']/1e6, 3), j['read'].get('clat_ns', {}).get('percentile', {}).get('99.990000'), j['read'].get('clat_ns', {}).get('percentile', {}).get('50.000000'))
" "$f" 2>&1 | tr '\n' ' ')"
done
cd "$OUT" && tar czf c1.tgz c1 && rm -rf c1
