#!/bin/bash
# Figure-4 analogue (BaM paper): 512 B and 4 KiB random read and write IOPS vs GPU threads
# (1K ... 1M) for 1, 2, 4, 8, 10 emulated optane-p5800x SSDs (128 queue pairs x 1024 each, the
# engine's preset: 10 us, 5.1 M / 1.5 M read IOPS, 1 M / 1.5 M write IOPS at 512 B / 4 KiB).
# One process per SSD count (the drives are opened once); each point runs 0.25 s, median of 3.
# Plus the direct-read ceilings at both sizes. ~4 minutes.
# Usage: BIN=folder-with-nvm-block-bench OUT=results/nbb-fig4/<gpu>/<date>-<commit> \
#   scripts/gpu/nbb-fig4.sh
source "$(dirname "$0")/nbb-common.sh"
for n in 1 2 4 8 10; do
  run fig4_ssd$n 150 --backend emulated --outstanding 1 --pairs 128 --depth 1024 \
    --model optane-p5800x --ssds $n --set storage.media.size_bytes=268435456 --ios 0 --duration 0.25 \
    --repeat 3 --sweep workload.io_size=512,4096 --sweep workload.op=read,write \
    --sweep workload.threads=1024,4096,16384,65536,262144,1048576
done
run fig4_ceilings 60 --backend emulated --outstanding 1 --model null --threads 1024 --ios 1024 \
  --set storage.media.size_bytes=1073741824 --measure-ceilings --sweep workload.io_size=512,4096
