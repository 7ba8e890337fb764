#!/bin/bash
# Issue 14's figure: the two queue protocols of the emulated backend side by side
# (storage.protocol hardware: MMIO doorbells, system-scope polling and the ordering read of BaM
# §4.4; emulator: device scope, an upper bound). null and ideal 512 B random reads, 1M GPU
# threads, 1 SSD x 128 queue pairs x 1024, median of 3; then 4 optane-p5800x at 512 B and 4 KiB
# (throttled: runs with the engine's scaled timing table and booking horizon), 0.5 s per run,
# median of 3. One process per model (the protocol sweep reopens the drives). ~3 minutes.
# Usage: BIN=folder-with-nvm-block-bench OUT=results/nbb-protocols/<gpu>/<date>-<commit> \
#   scripts/gpu/nbb-protocols.sh
source "$(dirname "$0")/nbb-common.sh"
G=(--backend emulated --outstanding 1 --pairs 128 --depth 1024 --threads 1048576 --repeat 3
   --sweep storage.protocol=hardware,emulator)

run null_read_512 100 "${G[@]}" --model null --io-size 512 \
  --set storage.media.size_bytes=268435456 --ios 8388608
run ideal_read_512 120 "${G[@]}" --model ideal --io-size 512 \
  --set storage.media.size_bytes=1073741824 --ios 8388608
run optane4_read 120 "${G[@]}" --model optane-p5800x --ssds 4 \
  --set storage.media.size_bytes=268435456 --ios 0 --duration 0.5 --sweep workload.io_size=512,4096
