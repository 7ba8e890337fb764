#!/bin/bash
# Hot-cache throughput (dissertation Figs 6.6/7.2 "hit", 7.4 "hit"; paper Fig. 6): 8-byte reads
# through bam::array over a warmed cache holding the whole dataset (32M elements = 256 MiB; the
# tool checks the measured pass has 0 misses), 4 emulated optane-p5800x behind it (not touched
# once warm). Line sizes 512 B / 4 KiB / 8 KiB.
#   hot_threads_L: plain (one acquire per thread) and coalesced (warp groups), threads 1K..32M,
#                  one access per thread, random elements.
#   hot_reuse_L_C: array_ref with coarsening C = 1..32 over 32M accesses (32M/C threads, each C
#                  consecutive elements), and coalesced with the same C for comparison.
# Each point median of 3. ~5 minutes on an H100.
# Usage: BIN=folder-with-cache-bench OUT=out scripts/gpu/cache-bench-hot.sh
source "$(dirname "$0")/cache-bench-common.sh"
COMMON=(--backend emulated --ssds 4 --model optane-p5800x --pairs 128 --depth 1024
  --set storage.media.size_bytes=268435456 --set storage.media.kind=gpu
  --set cache.capacity=268435456 --set cache_bench.elements=33554432 --repeat 3)
THREADS=1024,4096,16384,65536,262144,1048576,4194304,16777216,33554432
for L in 512 4096 8192; do
  run hot_threads_$L 150 "${COMMON[@]}" --set cache.line_size=$L --pattern random \
    --sweep cache_bench.mode=plain,coalesced --sweep workload.threads=$THREADS
done
for L in 512 4096 8192; do
  for C in 1 2 4 8 16 32; do
    run hot_reuse_${L}_$C 60 "${COMMON[@]}" --set cache.line_size=$L --pattern sequential \
      --threads $((33554432 / C)) --set cache_bench.coarsening=$C \
      --sweep cache_bench.mode=coalesced,reuse
  done
done
