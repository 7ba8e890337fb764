#!/bin/bash
# Hot-cache throughput (dissertation Figs 6.6/7.2 "hit", 7.4 "hit"; paper Fig. 6): 8-byte reads
# through bam::array over a warmed cache holding the whole dataset (32M elements = 256 MiB; the
# tool checks the measured pass has 0 misses), 4 emulated optane-p5800x behind it (not touched
# once warm). Line sizes 512 B / 4 KiB / 8 KiB; both element layouts (cache_bench.layout: thread
# = a thread's elements consecutive, warp = a warp's 32 x c elements consecutive, lanes
# interleaved, every warp load coalesced). Every run has >= 16 iterations so it is not
# launch-bound.
#   hot_threads_L_T: plain (one acquire per thread), coalesced (warp groups) and reuse
#     (array_ref) x thread/warp layout, T = 1K..32M threads, one element per thread and
#     iteration, random chunks (warp layout: a random 32-element run per warp), max(16, 2^24/T)
#     iterations (>= 16M accesses per run: the small grids run ~10-30 ms too).
#   hot_reuse_L_C: coalesced and reuse (array_ref) x thread/warp layout, coarsening C = 1..64,
#     32M/C threads (32M accesses per iteration), sequential, 160 iterations: 5.4 G accesses =
#     43 GB per run, >= 20 ms at 2 TB/s.
# Each point median of 3. Device time, counted on the H100 rates of results/cache-bench-hot/h100/
# (~70 ms of cache build + warm-up per run, ~0.5 s per process): threads ~60 s, reuse ~60 s;
# about 2 minutes in all, under 4 even at half the estimated rates.
# Usage: BIN=folder-with-cache-bench OUT=results/cache-bench-hot/<gpu>/<date>-<commit> \
#   scripts/gpu/cache-bench-hot.sh
source "$(dirname "$0")/cache-bench-common.sh"
COMMON=(--backend emulated --ssds 4 --model optane-p5800x --pairs 128 --depth 1024
  --set storage.media.size_bytes=268435456 --set storage.media.kind=gpu
  --set cache.capacity=268435456 --set cache_bench.elements=33554432 --repeat 3
  --sweep cache_bench.layout=thread,warp)
for L in 512 4096 8192; do
  for T in 1024 4096 16384 65536 262144 1048576 4194304 16777216 33554432; do
    IT=$((T >= 1048576 ? 16 : 16777216 / T))
    run hot_threads_${L}_$T 90 "${COMMON[@]}" --set cache.line_size=$L --pattern random \
      --threads $T --set cache_bench.iterations=$IT --sweep cache_bench.mode=plain,coalesced,reuse
  done
done
for L in 512 4096 8192; do
  for C in 1 2 4 8 16 32 64; do
    run hot_reuse_${L}_$C 90 "${COMMON[@]}" --set cache.line_size=$L --pattern sequential \
      --threads $((33554432 / C)) --set cache_bench.coarsening=$C \
      --set cache_bench.iterations=160 --sweep cache_bench.mode=coalesced,reuse
  done
done
