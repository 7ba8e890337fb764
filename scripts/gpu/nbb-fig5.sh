#!/bin/bash
# Figure-5 analogue (BaM paper): read bandwidth vs I/O size (4 KiB ... 1 MiB), sequential and
# random, over the same bytes held in host DRAM:
#   emulated: GPU-initiated reads from 1 `ideal` emulated SSD (pinned media, 128 QP x 1024,
#             16384 GPU threads, PRP lists above 8 KiB);
#   zerocopy: GPU threads read the pinned media directly (16384 threads);
#   uring:    CPU-orchestrated io_uring reads of a file + cudaMemcpyAsync of each read to the GPU,
#             16 CPU threads x 32 in flight, the file in the page cache (pre-read) or O_DIRECT.
# Latency percentiles are in every job. Each point 0.5 s (uring 1 s), median of 3. ~6 minutes.
# Usage: BIN=folder-with-nvm-block-bench OUT=results/nbb-fig5/<gpu>/<date>-<commit> \
#   [MEDIA_DIR=folder on disk] scripts/gpu/nbb-fig5.sh
source "$(dirname "$0")/nbb-common.sh"
# The file must be on a file system with O_DIRECT (not tmpfs): default the current folder.
: "${MEDIA_DIR:=$PWD}"
SIZES=4096,8192,16384,32768,65536,131072,262144,524288,1048576
MEDIA=4294967296
run fig5_emulated 200 --backend emulated --outstanding 1 --pairs 128 --depth 1024 --model ideal \
  --set storage.media.size_bytes=$MEDIA --threads 16384 --ios 0 --duration 0.5 --repeat 3 \
  --measure-ceilings --sweep workload.pattern=sequential,random --sweep workload.io_size=$SIZES
run fig5_zerocopy 120 --backend zerocopy --outstanding 1 --set storage.media.size_bytes=$MEDIA \
  --threads 16384 --ios 0 --duration 0.5 --repeat 3 \
  --sweep workload.pattern=sequential,random --sweep workload.io_size=$SIZES
F="$MEDIA_DIR/nbb-fig5-media.dat"
for mode in pagecache direct; do
  d=false; [ $mode = direct ] && d=true
  run fig5_uring_$mode 200 --backend uring --set storage.media.kind=file --media-path "$F" \
    --set storage.media.size_bytes=$MEDIA --set uring.direct=$d --set uring.gpu_copy=on \
    --threads 16 --outstanding 32 --ios 0 --duration 1 --repeat 3 \
    --sweep workload.pattern=sequential,random --sweep workload.io_size=$SIZES
done
rm -f "$F"
