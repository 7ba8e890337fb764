#!/bin/bash
# Writes through the cache (the write side of dissertation Figs 7.2/7.4 and paper Fig. 6).
#   hot_write_L_C: a warmed cache holding the whole dataset (32M elements = 256 MiB, 4 emulated
#     optane-p5800x behind it, never touched once warm: 0 misses is checked), every element
#     access a write (`--op write`) or a 50/50 mix of read and write chunks (`mixed`), through
#     warp-coalesced bam::array writes and array_ref writes, both layouts, sequential,
#     coarsening C = 1, 8, 64, 32M/C threads, 160 iterations. Lines become dirty; the flush
#     after the measured pass is not timed.
#   cold_write_optane_512: 512 B lines over 4 x optane-p5800x, a 256 MiB cache, a 4 GiB dataset,
#     every thread writes whole lines through array_ref (c = 64), 1M threads x 8 lines: each line
#     is fetched (a read) and later written back when evicted (a write), so miss IOPS count both;
#     the model caps 512 B writes at 1 M/s per drive (4 M/s in all) and reads at 5.1 M/s.
# Each point median of 3. About 1-2 minutes on an H200.
# Usage: BIN=folder-with-cache-bench OUT=results/cache-bench-writes/<gpu>/<date>-<commit> \
#   scripts/gpu/cache-bench-writes.sh
source "$(dirname "$0")/cache-bench-common.sh"
HOT=(--backend emulated --ssds 4 --model optane-p5800x --pairs 128 --depth 1024
  --set storage.media.size_bytes=268435456 --set storage.media.kind=gpu
  --set cache.capacity=268435456 --set cache_bench.elements=33554432 --repeat 3
  --sweep cache_bench.layout=thread,warp --pattern sequential --set cache_bench.iterations=160)
for L in 4096 8192; do
  for C in 1 8 64; do
    run hot_write_${L}_$C 120 "${HOT[@]}" --set cache.line_size=$L --threads $((33554432 / C)) \
      --set cache_bench.coarsening=$C --sweep cache_bench.mode=coalesced,reuse \
      --sweep workload.op=write,mixed
  done
done
run cold_write_optane_512 200 --backend emulated --ssds 4 --model optane-p5800x --pairs 128 \
  --depth 1024 --set storage.media.size_bytes=1073741824 --set storage.media.kind=gpu \
  --set cache.line_size=512 --set cache.capacity=268435456 --set cache_bench.temperature=cold \
  --set cache_bench.elements=536870912 --repeat 3 --threads 1048576 \
  --set cache_bench.mode=reuse --set cache_bench.coarsening=64 --set cache_bench.iterations=8 \
  --op write --sweep workload.pattern=sequential,random
