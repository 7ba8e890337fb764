#!/bin/bash
# The tests labelled `gpu` (what `ctest -L gpu` runs in a build tree), from stripped copies of the
# test binaries and the tools they drive, staged in one folder and copied to the GPU machine.
# Stage them on the build machine with `scripts/gpu/run-gpu-tests.sh --stage DIR` (after
# `cmake --build --preset default`); run on the GPU machine with
# `BIN=DIR OUT=out scripts/gpu/run-gpu-tests.sh`. One "== test rc=N" line per test, the gtest
# summary under it, full logs in $OUT (TEST_TIMEOUT: seconds per test binary, default 600). Exit
# status 1 when any test failed. TESTS="a b ...": only these test binaries (staging, which
# takes the tools too, and running).
set -u
: "${TESTS:=emulated_drives_test host_controller_gpu_test gpu_queues_test emu_processor_gpu_test
       nvme_gpu_test cache_gpu_test cache_bench_gpu_test nbb_gpu_test gpu_context_test
       queue_outstanding_gpu_test taxi_gpu_test graph_apps_gpu_test}"
if [ "${1:-}" = --stage ]; then
  dir=$2 build=${BUILD:-build/default}
  mkdir -p "$dir"
  for t in $TESTS; do
    f=$(find "$build/tests" -name "$t" -type f -perm -u+x | head -n 1)
    [ -n "$f" ] || { echo "not built: $t"; exit 1; }
    strip -o "$dir/$t" "$f"
  done
  strip -o "$dir/nvm-block-bench" "$build/tools/nvm-block-bench/nvm-block-bench"
  strip -o "$dir/cache-bench" "$build/tools/cache-bench/cache-bench"
  strip -o "$dir/taxi-query" "$build/tools/taxi-query/taxi-query"
  strip -o "$dir/bam-data" "$build/tools/bam-data/bam-data"
  strip -o "$dir/bfs" "$build/tools/bfs/bfs"  # for regression-points.sh and engine-split.sh
  strip -o "$dir/cc" "$build/tools/cc/cc"
  exit 0
fi
: "${BIN:=$(dirname "$0")}" "${OUT:=out}"
mkdir -p "$OUT"
export CUDA_MODULE_LOADING=EAGER NBB_BIN="$BIN/nvm-block-bench" CACHE_BENCH_BIN="$BIN/cache-bench"
export TAXI_QUERY_BIN="$BIN/taxi-query" BAM_DATA_BIN="$BIN/bam-data"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/nvidia-smi.csv" 2>&1
status=0
for t in $TESTS; do
  t0=$SECONDS
  timeout "${TEST_TIMEOUT:-600}" "$BIN/$t" > "$OUT/$t.log" 2>&1
  rc=$?
  echo "== $t rc=$rc $((SECONDS - t0)) s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]" "$OUT/$t.log" | head -n 12
  [ $rc -eq 0 ] || status=1
done
exit $status
