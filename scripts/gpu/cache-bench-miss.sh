#!/bin/bash
# Miss handling (dissertation Figs 6.6/7.2/7.4 "miss"; issue 6's IOPS targets): a cold cache in
# front of a larger dataset, every line fetched from emulated SSDs. Cold coalesced/array_ref
# runs need a slot per resident GPU thread (cache-bench checks it): 512K slots here.
#   miss_optane_512: 4 x optane-p5800x, 512 B lines; target >= 90% of the model's cap
#     (4 x 5.1 M reads/s = 20.4 M). Each thread reads whole lines through array_ref
#     (coarsening 64 = one line) so every thread access is one miss; 1M threads x 8 lines
#     (4 GiB dataset), sequential and random; plus coalesced element-wise reads (coarsening 1
#     and 8, 32M threads) for Fig. 7.2/7.4's miss curves.
#   miss_ideal_4k: 4 x ideal SSDs with pinned host media, 4 KiB lines (whole lines per thread),
#     compared with the PCIe ceilings measured in the same process (--measure-ceilings:
#     bamkit.ceilings.h2d_memcpy_gbps and direct_read_gbps).
# Each point median of 3. ~5 minutes on an H100.
# Usage: BIN=folder-with-cache-bench OUT=results/cache-bench-miss/<gpu>/<date>-<commit> \
#   scripts/gpu/cache-bench-miss.sh
source "$(dirname "$0")/cache-bench-common.sh"
OPT=(--backend emulated --ssds 4 --model optane-p5800x --pairs 128 --depth 1024
  --set storage.media.size_bytes=1073741824 --set storage.media.kind=gpu
  --set cache.line_size=512 --set cache.capacity=268435456
  --set cache_bench.temperature=cold --set cache_bench.elements=536870912 --repeat 3)
run miss_optane_512 200 "${OPT[@]}" --threads 1048576 --set cache_bench.mode=reuse \
  --set cache_bench.coarsening=64 --set cache_bench.iterations=8 \
  --sweep workload.pattern=sequential,random
run miss_optane_512_coalesced 200 "${OPT[@]}" --pattern sequential \
  --sweep cache_bench.coarsening=1,8 --threads 33554432
IDEAL=(--backend emulated --ssds 4 --model ideal --pairs 128 --depth 1024
  --set storage.media.size_bytes=2147483648 --set storage.media.kind=host
  --set cache.capacity=2147483648 --set cache_bench.temperature=cold
  --set cache_bench.elements=1073741824 --repeat 3 --measure-ceilings)
run miss_ideal_4k 200 "${IDEAL[@]}" --set cache.line_size=4096 --threads 1048576 \
  --set cache_bench.mode=reuse --set cache_bench.coarsening=512 \
  --sweep workload.pattern=sequential,random
