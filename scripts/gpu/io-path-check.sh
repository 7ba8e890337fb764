#!/bin/bash
# A change to the I/O path (the queue protocol, the engine) checked on a GPU in one device call,
# most important first, each phase only while the call's time lasts:
#   tests     the gpu-labelled tests that drive the queues (run-gpu-tests.sh: 1M threads with
#             read-after-write stamps in both protocols, nvm-block-bench's and the cache's GPU
#             tests, the recovery and outstanding-command tests)
#   table     issue 19's table in both protocols (io-path-table.sh), the new build
#   points    regression points, old and new build in alternation (regression-points.sh)
#   sanitize  compute-sanitizer (TOOLS, default memcheck) over the small cases of the GPU-side
#             queue code and the cache (sanitize.sh)
# Stage on the build machine (both folders hold stripped binaries):
#   scripts/gpu/io-path-check.sh --stage DIR OLD_BUILD_DIR   (OLD_BUILD_DIR: a build tree of the
#   commit before the change, with nvm-block-bench and cache-bench built)
# Run on the GPU machine: BIN=DIR OUT=out [BUDGET=300] [PHASES="tests table points sanitize"]
#   [REG_POINTS="..."] [TABLE_POINTS="..."] [ROUNDS=1] scripts/gpu/io-path-check.sh   (the points
#   of each phase: regression-points.sh's and io-path-table.sh's names, default: theirs below,
#   all; ROUNDS: the points' rounds of old and new)
# A phase starts only when at least its estimate (H200) is left of BUDGET seconds; a skipped one
# says so. Logs go to $OUT/check/ and are packed into $OUT/io-path-check.tgz (the device tool
# returns 8 files at most); $OUT/summary.txt has every phase's lines. Exit status 1 when
# anything failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
TEST_NAMES="emulated_drives_test nbb_gpu_test host_controller_gpu_test queue_outstanding_gpu_test
  cache_gpu_test cache_bench_gpu_test gpu_context_test"
if [ "${1:-}" = --stage ]; then
  [ $# -eq 3 ] || { echo "usage: $0 --stage DIR OLD_BUILD_DIR" >&2; exit 2; }
  dir=$2 old=$3
  TESTS=$TEST_NAMES "$here/run-gpu-tests.sh" --stage "$dir/new" || exit 1  # and the tools
  mkdir -p "$dir/old"
  for t in nvm-block-bench cache-bench; do
    [ -x "$old/tools/$t/$t" ] || { echo "not built: $old/tools/$t/$t" >&2; exit 1; }
    strip -o "$dir/old/$t" "$old/tools/$t/$t"
  done
  exit 0
fi
: "${BIN:?staged folder}" "${OUT:=out}" "${BUDGET:=300}"
: "${PHASES:=tests table points sanitize}"
: "${REG_POINTS:=nbb_null_512 nbb_ideal_512 cb_miss_optane nbb_optane4_512}"
log=$OUT/check
mkdir -p "$log"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$log/nvidia-smi.txt" 2>&1
start=$SECONDS
status=0
# phase NAME ESTIMATE_S COMMAND...: runs COMMAND when ESTIMATE_S is left, bounded by what is left.
phase() {
  local name=$1 est=$2
  shift 2
  [[ " $PHASES " == *" $name "* ]] || return 0
  local left=$((BUDGET - (SECONDS - start)))
  if [ "$left" -lt "$est" ]; then
    echo "== $name skipped: $left s left, needs about $est s" | tee -a "$OUT/summary.txt"
    return 0
  fi
  local t0=$SECONDS
  timeout "$left" "$@" > "$log/$name.txt" 2>&1
  local rc=$?
  echo "== $name rc=$rc $((SECONDS - t0)) s" | tee -a "$OUT/summary.txt"
  grep -E "^== |rc=|SUMMARY|repeat:" "$log/$name.txt" >> "$OUT/summary.txt"
  [ $rc -eq 0 ] || status=1
}
phase tests 60 env TESTS="$TEST_NAMES" BIN="$BIN/new" OUT="$log/tests" TEST_TIMEOUT=60 \
  "$here/run-gpu-tests.sh"
# The table's estimate: its points' seconds in both protocols (io-path-table.sh --estimate).
table_s=$((2 * $(POINTS="${TABLE_POINTS:-}" "$here/io-path-table.sh" --estimate)))
phase table "$table_s" env BIN="$BIN/new" OUT="$log/table" POINTS="${TABLE_POINTS:-}" bash -c \
  'PROTOCOL=hardware "$0"; a=$?; PROTOCOL=emulator "$0" && exit $a' "$here/io-path-table.sh"
: "${ROUNDS:=1}"
phase points $((40 * ROUNDS)) env OLD="$BIN/old" NEW="$BIN/new" OUT="$log/points" ROUNDS="$ROUNDS" \
  POINTS="$REG_POINTS" \
  "$here/regression-points.sh"
phase sanitize 25 env TOOLS="${TOOLS:-memcheck}" \
  NAMES="host_controller_gpu_test queue_outstanding_gpu_test cache_gpu_test" BIN="$BIN/new" \
  OUT="$log/sanitize" "$here/sanitize.sh"
tar czf "$OUT/io-path-check.tgz" -C "$log" .
exit $status
