#!/bin/bash
# Issue 3's GPU numbers re-measured with nvm-block-bench (one device call, ~3 minutes):
#   ideal 512 B and 4 KiB random reads, 1M GPU threads, 1 SSD x 128 queue pairs x 1024, median of
#   5 runs, with the ceilings (pinned cudaMemcpy, direct random-read kernel) measured alongside;
#   null 512 B; one queue pair (depth 1024) IOPS vs threads 32 ... 1M, null and ideal.
# Usage: BIN=folder-with-nvm-block-bench OUT=results/nbb-issue3/<gpu>/<date>-<commit> \
#   scripts/gpu/nbb-issue3.sh
source "$(dirname "$0")/nbb-common.sh"
G=(--backend emulated --outstanding 1 --pairs 128 --depth 1024 --threads 1048576)

run ideal_read_512 90 "${G[@]}" --model ideal --io-size 512 --set storage.media.size_bytes=1073741824 \
  --ios 8388608 --repeat 5 --measure-ceilings
run ideal_read_4096 90 "${G[@]}" --model ideal --io-size 4096 --set storage.lba_size=4096 \
  --set storage.media.size_bytes=2147483648 --ios 4194304 --repeat 5 --measure-ceilings
run null_read_512 60 "${G[@]}" --model null --io-size 512 --set storage.media.size_bytes=268435456 \
  --ios 8388608 --repeat 5
# The same three with --verify once (data checked on the GPU; not timed for the record).
run ideal_verify_4096 60 "${G[@]}" --model ideal --io-size 4096 --op mixed --set workload.read_ratio=0.7 \
  --set storage.media.size_bytes=268435456 --ios 2097152 --verify

# One queue pair: each point runs 0.5 s (duration mode: every thread stops issuing after 0.5 s from
# the kernel's first I/O, so blocks that only become resident later do no I/O; the kernel time
# includes draining what is in flight), median of 3 up to 64K threads; the two largest points
# once each (past 4K threads the queue collapses and draining takes seconds).
for m in null ideal; do
  Q=(--backend emulated --outstanding 1 --pairs 1 --depth 1024 --model $m --io-size 512
     --set storage.media.size_bytes=268435456 --ios 0 --duration 0.5)
  run single_qp_$m 120 "${Q[@]}" --repeat 3 \
    --sweep workload.threads=32,128,512,1024,2048,4096,8192,16384,65536
  run single_qp_${m}_large 120 "${Q[@]}" --sweep workload.threads=262144,1048576
done
