#!/bin/bash
# cache-bench correctness on the GPU: the gtest (label gpu) plus --verify runs of every mode and
# both element layouts (cache_bench.layout thread, warp), reads and writes, hot and cold,
# checked against the SSDs' media after the flush. ~2 minutes.
# Usage: BIN=folder-with-cache-bench [TEST=path/to/cache_bench_gpu_test] \
#   OUT=results/cache-bench-verify/<gpu>/<date>-<commit> scripts/gpu/cache-bench-verify.sh
source "$(dirname "$0")/cache-bench-common.sh"
if [ -n "${TEST:-}" ]; then
  CACHE_BENCH_BIN="$CB" timeout 300 "$TEST" > "$OUT/gtest.txt" 2>&1
  echo "== gtest rc=$?"; tail -n 5 "$OUT/gtest.txt"
fi
V=(--backend emulated --ssds 2 --model optane-p5800x --set storage.media.size_bytes=268435456
  --set cache_bench.elements=4194304 --set cache_bench.coarsening=4 --verify
  --sweep cache_bench.layout=thread,warp)
run verify_hot 120 "${V[@]}" --threads 262144 --set cache.capacity=33554432 --set cache.line_size=4096 \
  --sweep cache_bench.mode=plain,coalesced,reuse --sweep workload.op=read,write,mixed
# cold: 8192 threads over 8192 slots of 512 B (coalesced/array_ref need a slot per thread) and
# a 32 MiB dataset; every thread 64 iterations.
run verify_cold 120 "${V[@]}" --set cache.capacity=4194304 --set cache.line_size=512 \
  --set cache_bench.temperature=cold --pattern random --threads 8192 \
  --set cache_bench.iterations=64 \
  --sweep cache_bench.mode=plain,coalesced,reuse --sweep workload.op=read,write,mixed
