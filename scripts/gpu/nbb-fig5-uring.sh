#!/bin/bash
# The io_uring half of the Figure-5 analogue on its own (see nbb-fig5.sh): CPU threads read the
# same 4 GiB file from the page cache (buffered) and with O_DIRECT, 4 KiB ... 1 MiB, sequential
# and random, 16 threads x 32 in flight, 0.5 s per point. GPU_COPY (default off) sets
# uring.gpu_copy: with `on` every read is also copied to GPU memory (cudaMemcpyAsync per I/O),
# which still hangs after the first second on the H100/H200 (issue 4); with `off` the figure shows
# the CPU side alone, whose bandwidth bounds the baseline together with the pinned copy ceiling.
# Usage: BIN=folder-with-nvm-block-bench OUT=results/nbb-fig5/<gpu>/<date>-<commit> \
#   [GPU_COPY=off] scripts/gpu/nbb-fig5-uring.sh
source "$(dirname "$0")/nbb-common.sh"
: "${MEDIA_DIR:=$PWD}" "${GPU_COPY:=off}"
SIZES=4096,8192,16384,32768,65536,131072,262144,524288,1048576
F="$MEDIA_DIR/nbb-fig5-media.dat"
for mode in pagecache direct; do
  d=false; [ $mode = direct ] && d=true
  run fig5_uring_${mode}_copy_$GPU_COPY 120 --backend uring --set storage.media.kind=file \
    --media-path "$F" --set storage.media.size_bytes=4294967296 --set uring.direct=$d \
    --set uring.gpu_copy=$GPU_COPY --threads 16 --outstanding 32 --ios 0 --duration 0.5 \
    --sweep workload.pattern=sequential,random --sweep workload.io_size=$SIZES
done
rm -f "$F"
