#!/bin/bash
# compute-sanitizer over the GPU-side queue and command-processing code (issue 3). Run on the
# GPU machine from a directory holding the test binaries (BIN, default: this script's folder),
# with OUT the folder for the logs. compute-sanitizer serialises kernels, so the GPU engine
# (a persistent kernel beside the application's) cannot run under it: the queue code is checked
# in host_controller_gpu_test's small case, where GPU threads drive queues that the host
# emulated controller serves (one kernel), and the engine's command processor in
# emu_processor_gpu_test. A tool passes when it reports 0 errors and the tests pass.
# TOOLS="memcheck ..." and NAMES="binary ...": only these tools and test binaries.
set -u
TOOLS=${TOOLS:-memcheck racecheck synccheck initcheck}
NAMES=${NAMES:-}
BIN=${BIN:-$(dirname "$0")}
OUT=${OUT:-out}
CS=${CS:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
mkdir -p "$OUT"
status=0
run() {
  local tool=$1 name=$2 filter=$3
  [ -z "$NAMES" ] || [[ " $NAMES " == *" $name "* ]] || return 0
  local log="$OUT/sanitize-$tool-$name.log"
  timeout 300 "$CS" --tool "$tool" --error-exitcode 99 "$BIN/$name" --gtest_filter="$filter" \
    > "$log" 2>&1
  local rc=$?
  echo "$tool $name ($filter): rc=$rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|\[  (PASSED|FAILED) ' "$log" | tr '\n' ' ')"
  [ $rc -eq 0 ] || status=1
}
"$CS" --version | head -2
for tool in $TOOLS; do
  run "$tool" host_controller_gpu_test 'HostControllerGpu.SanitizerCase*'
  run "$tool" emu_processor_gpu_test '*'
  run "$tool" nvme_gpu_test '*'
  # Several commands in flight per GPU thread, taken in any order (issue 14): one kernel
  # against the loopback controller on a host thread.
  run "$tool" queue_outstanding_gpu_test 'QueueOutstandingGpu.SanitizerCase'
  # The cache and bam::array over a storage policy in GPU memory (no engine kernel): coalesced
  # reads, writes, atomics, array_ref, and the error path (failed reads: the error flag).
  run "$tool" cache_gpu_test 'CacheGpuSanitizer.*:CacheGpuErrors.*'
  # bfs and cc's kernels through a bam::array over a cache whose storage copies lines in GPU
  # memory (issue 15).
  run "$tool" graph_apps_gpu_test 'GraphAppsGpuSanitizer.*'
done
exit $status
