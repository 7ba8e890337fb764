#!/bin/bash
# The checks of issue 14 on a GPU, with nvm-block-bench's emulated backend (GPU threads on BaM
# queues, SSDs emulated on the same GPU, media in pinned host memory):
#   soak_<size>       verified mixed reads and writes (50 %), several commands in flight per
#                     thread waited for in changing orders, 1 % of commands delayed so that
#                     completions arrive out of order; every read checked against the pattern
#   fault_<kind>      one fault kind injected at a known fraction: the run must end, exit 3 and
#                     count what the fraction predicts
#   queue_fail_drop   so many lost completions that queues fail (more than half their command
#                     IDs abandoned): ends in bounded time, exit 3, Host Queue Failed reported
# Reports and logs go to $OUT/<name>.{json,txt}. PROTOCOL: storage.protocol (default hardware).
# 65536 threads x 4 in flight on 4 x 32 queues of 1024 entries: 2048 commands per queue, what its
# command IDs allow.
# Usage: BIN=dir OUT=out [SOAK_IOS=600000000] scripts/gpu/faults-soak.sh
set -u
: "${BIN:?folder with nvm-block-bench}" "${OUT:=out}" "${SOAK_IOS:=600000000}"
: "${PROTOCOL:=hardware}"
mkdir -p "$OUT"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/nvidia-smi.csv" 2>&1
BASE=(--backend emulated --ssds 4 --model ideal --pairs 32 --depth 1024 --threads 65536
  --set storage.media.size_bytes=1073741824 --set storage.protocol="$PROTOCOL")
status=0
run() {  # name expected-exit args...
  local name=$1 want=$2 t0=$SECONDS
  shift 2
  timeout 580 "$BIN/nvm-block-bench" "${BASE[@]}" "$@" --report "$OUT/$name.json" \
    > "$OUT/$name.txt" 2>&1
  local rc=$?
  echo "== $name rc=$rc (want $want) $((SECONDS - t0)) s"
  grep -E "IOPS|error|timeout|verif" "$OUT/$name.txt" | head -n 6
  [ $rc -eq "$want" ] || status=1
}
SOAK=(--verify --op mixed --set workload.read_ratio=0.5 --outstanding 4
  --set storage.faults.delay_fraction=0.01 --set storage.faults.delay_us=20
  --set storage.faults.seed=1)
run soak_512 0 "${SOAK[@]}" --io-size 512 --ios "$SOAK_IOS"
run soak_4096 0 "${SOAK[@]}" --io-size 4096 --set storage.lba_size=4096 \
  --ios $((SOAK_IOS * 2 / 3))
F=(--io-size 512 --ios 20000000 --outstanding 2 --set storage.faults.seed=7)
run fault_error 3 "${F[@]}" --set storage.faults.error_fraction=0.001
run fault_delay 0 "${F[@]}" --set storage.faults.delay_fraction=0.001 \
  --set storage.faults.delay_us=2000
run fault_drop 3 "${F[@]}" --set storage.faults.drop_fraction=0.00001 --set queues.timeout_ms=200
# Lost completions faster than Aborts can follow (docs/gpu-engine.md): 90 % of the commands
# dropped on 4 queues of 1024 command IDs whose threads keep up to 1024 commands in flight, so
# more than half of a queue's IDs end abandoned and the queue fails; its other commands end at
# once with Host Queue Failed. The run must still end within a few timeouts, exit 3, and report
# both statuses.
HEAVY=(--backend emulated --ssds 1 --model ideal --pairs 4 --depth 512 --threads 2048
  --set storage.media.size_bytes=268435456 --set storage.protocol="$PROTOCOL")
t0=$SECONDS
timeout 300 "$BIN/nvm-block-bench" "${HEAVY[@]}" --io-size 512 --ios 400000 --outstanding 2 \
  --set storage.faults.drop_fraction=0.9 --set storage.faults.seed=7 --set queues.timeout_ms=200 \
  --report "$OUT/queue_fail_drop.json" > "$OUT/queue_fail_drop.txt" 2>&1
rc=$?
echo "== queue_fail_drop rc=$rc (want 3) $((SECONDS - t0)) s"
grep -E "IOPS|error|timeout" "$OUT/queue_fail_drop.txt" | head -n 6
[ $rc -eq 3 ] || status=1
grep -q "Host Queue Failed" "$OUT/queue_fail_drop.json" || { echo "no Host Queue Failed"; status=1; }
exit $status
