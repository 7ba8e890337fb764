#!/bin/bash
# Issue 19's table of the I/O path (nvm-block-bench, emulated backend, 512 B / 4 KiB random
# reads) in one storage.protocol per call, each point one process of 3 runs (--repeat 3: the
# median run is the job, bamkit.repeat has min/max), with the ceilings measured in the same
# process over the same footprint (every SSD's pinned media; --measure-ceilings):
#   ideal_4k_8g      4 KiB, 1 ideal SSD, 8 GiB of media            (ceilings over 8 GiB)
#   ideal_512_1g     512 B, 1 ideal SSD, 1 GiB                      (over 1 GiB)
#   ideal_512_4g     512 B, 1 ideal SSD, 4 GiB                      (over 4 GiB)
#   optane1_512      512 B, 1 x optane-p5800x, 1 GiB
#   optane4_512      512 B, 4 x optane-p5800x, 1 GiB each
#   optane10_256m    512 B, 10 x optane-p5800x, 256 MiB each         (over 2.5 GiB)
#   optane10_1g      512 B, 10 x optane-p5800x, 1 GiB each           (over 10 GiB)
#   optane10_1g_even the same with the engine as 80 blocks of 4 warps, each block alone on one of
#                    the GPU's first SMs (gpu.engine_placement first-sms): even service for the
#                    latency tail (docs/gpu-engine.md, "Even service at 10 GiB"; 64 x 4 before
#                    1ac4fd9; not in the default POINTS: run it by name). Since 6eeb6b4 it is
#                    what nvm-block-bench's default (auto) gives optane10_1g on an H200, given
#                    explicitly
# Since 6eeb6b4 (gpu.engine_placement auto) nvm-block-bench's points with 2 GiB or more of pinned
# media (ideal_4k_8g, ideal_512_4g, optane4_512, optane10_256m, optane10_1g) run the even engine
# by default (docs/gpu-engine.md, "The even engine of nvm-block-bench"); EXTRA="--set
# gpu.engine_placement=scheduler" gives the scheduler's 16 x 16 as before.
#   qd1_null         1 GPU thread, 1 command at a time, 1 null SSD, 1 queue pair: latency
#   qd1_optane       the same on 1 x optane-p5800x (model latency 10 us)
#   oneqp_null       one queue pair of 1024 on a null SSD, 1K / 64K / 1M threads (one process,
#                    --sweep workload.threads), 1M I/Os each: at 1M threads that is under one I/O a
#                    thread, a rate over the launch's waves, not a steady one (issue 19's table
#                    kept it so; configs/sweeps/nbb-issue3.json times one queue pair for 0.5 s)
# Every other point: 128 queue pairs x 1024 per SSD, 1M GPU threads, 1 outstanding per thread.
# Reports and logs: $OUT/<protocol>/<point>.{json,txt}; scripts/gpu/io-path-table.py makes the
# table. Usage: BIN=dir-with-nvm-block-bench OUT=out [PROTOCOL=hardware] [POINTS="..."]
#   [EXTRA="--set gpu.engine_blocks=64 ..."] (appended to every point's arguments)
#   scripts/gpu/io-path-table.sh       (about 1.5 minutes per protocol on an H200)
# `[POINTS="..."] scripts/gpu/io-path-table.sh --estimate` prints the seconds POINTS take in one
# protocol (H200), runs nothing. `[PROTOCOL=...] scripts/gpu/io-path-table.sh --args POINT` prints
# the point's nvm-block-bench arguments (without EXTRA), runs nothing (regression-points.sh's
# `table_` points).
set -u
: "${POINTS:=ideal_4k_8g ideal_512_1g ideal_512_4g optane1_512 optane4_512 optane10_256m optane10_1g qd1_null qd1_optane oneqp_null}"
# Seconds a point takes in one protocol on an H200, start and ceilings included: the longer
# protocol of a17041c's table (results/io-path/h200/2026-11-28-a17041c/) and about a fifth more.
seconds_of() {
  case $1 in
    ideal_4k_8g) echo 14 ;; ideal_512_1g) echo 3 ;; ideal_512_4g) echo 5 ;;
    optane1_512) echo 8 ;; optane4_512) echo 11 ;; optane10_256m) echo 9 ;;
    optane10_1g | optane10_1g_even) echo 18 ;; qd1_null | qd1_optane) echo 5 ;; oneqp_null) echo 8 ;;
    *) echo 30 ;;  # unknown: args_of says so when it runs
  esac
}
if [ "${1:-}" = --estimate ]; then
  total=0
  for p in $POINTS; do total=$((total + $(seconds_of "$p"))); done
  echo "$total"
  exit 0
fi
: "${PROTOCOL:=hardware}"
GiB=1073741824
BASE=(--backend emulated --pairs 128 --depth 1024 --threads 1048576 --outstanding 1 --repeat 3
  --set storage.protocol="$PROTOCOL")
QD1=(--backend emulated --pairs 1 --depth 64 --threads 1 --outstanding 1 --repeat 3 --ios 20000
  --io-size 512 --set storage.protocol="$PROTOCOL")
args_of() {
  case $1 in
    ideal_4k_8g) echo "${BASE[@]}" --model ideal --io-size 4096 --set storage.lba_size=4096 \
      --set storage.media.size_bytes=$((8 * GiB)) --ios 4194304 --measure-ceilings ;;
    ideal_512_1g) echo "${BASE[@]}" --model ideal --io-size 512 \
      --set storage.media.size_bytes=$GiB --ios 8388608 --measure-ceilings ;;
    ideal_512_4g) echo "${BASE[@]}" --model ideal --io-size 512 \
      --set storage.media.size_bytes=$((4 * GiB)) --ios 8388608 --measure-ceilings ;;
    optane1_512) echo "${BASE[@]}" --model optane-p5800x --io-size 512 \
      --set storage.media.size_bytes=$GiB --ios 8388608 ;;
    optane4_512) echo "${BASE[@]}" --ssds 4 --model optane-p5800x --io-size 512 \
      --set storage.media.size_bytes=$GiB --ios 33554432 ;;
    optane10_256m) echo "${BASE[@]}" --ssds 10 --model optane-p5800x --io-size 512 \
      --set storage.media.size_bytes=$((GiB / 4)) --ios 67108864 --measure-ceilings ;;
    optane10_1g) echo "${BASE[@]}" --ssds 10 --model optane-p5800x --io-size 512 \
      --set storage.media.size_bytes=$GiB --ios 67108864 --measure-ceilings ;;
    optane10_1g_even) echo "$(args_of optane10_1g)" --set gpu.engine_placement=first-sms \
      --set gpu.engine_blocks=80 --set gpu.engine_warps_per_block=4 ;;
    qd1_null) echo "${QD1[@]}" --model null ;;
    qd1_optane) echo "${QD1[@]}" --model optane-p5800x ;;
    oneqp_null) echo --backend emulated --pairs 1 --depth 1024 --outstanding 1 --repeat 3 \
      --io-size 512 --ios 1000000 --model null --set storage.protocol="$PROTOCOL" \
      --sweep workload.threads=1024,65536,1048576 ;;
    *) echo "unknown point $1" >&2; return 1 ;;
  esac
}
if [ "${1:-}" = --args ]; then
  [ $# -eq 2 ] || { echo "usage: $0 --args POINT" >&2; exit 2; }
  args_of "$2"
  exit
fi
: "${BIN:?folder with nvm-block-bench}" "${OUT:=out}"
dir=$OUT/$PROTOCOL
mkdir -p "$dir"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current \
  --format=csv > "$OUT/nvidia-smi.csv" 2>&1
status=0
for p in $POINTS; do
  a=$(args_of "$p") || { status=1; continue; }
  t0=$SECONDS
  # shellcheck disable=SC2086
  timeout 300 "$BIN/nvm-block-bench" $a ${EXTRA:-} --report "$dir/$p.json" > "$dir/$p.txt" 2>&1
  rc=$?
  echo "== $PROTOCOL $p rc=$rc $((SECONDS - t0)) s: $(grep -E '^  (read|total)' "$dir/$p.txt" |
    tail -n 1)"
  [ $rc -eq 0 ] || status=1
done
exit $status
