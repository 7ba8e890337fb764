#!/bin/bash
# Hot-cache experiment: each variant's cache-bench at the best hot points.
# usage: .stage/hotexp.sh OUTDIR variant...
O=$1; shift
for V in "$@"; do
  for L in 8192 4096; do
    BIN=.stage/$V OUT=$O/$V bash -c "source scripts/gpu/cache-bench-common.sh; run hot_reuse_${L}_64 90 --backend emulated --ssds 4 --model optane-p5800x --pairs 128 --depth 1024 --set storage.media.size_bytes=268435456 --set storage.media.kind=gpu --set cache.capacity=268435456 --set cache_bench.elements=33554432 --repeat 3 --sweep cache_bench.layout=thread,warp --set cache.line_size=$L --pattern sequential --threads 524288 --set cache_bench.coarsening=64 --set cache_bench.iterations=160 --sweep cache_bench.mode=reuse" 2>&1 | grep -v "^name\|NVIDIA"
  done
done
