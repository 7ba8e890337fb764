#!/bin/bash
# The cache's GPU tests (issue 6): the million-thread test on two GPU-emulated SSDs, then the
# small case (no engine kernel) under compute-sanitizer memcheck, racecheck and synccheck.
# Run from the repository root after
#   cmake --build --preset default --target cache_gpu_test
# or with T=path/to/a/staged/cache_gpu_test (scripts/gpu/run-gpu-tests.sh --stage DIR).
# Logs under $OUT; one "== ... rc=N" line per step on stdout.
set -u
: "${OUT:=out}"
T=${T:-build/default/tests/cache/cache_gpu_test}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/nvidia-smi.csv" 2>&1
timeout 300 "$T" --gtest_filter='CacheGpu.*' > "$OUT/cache_gpu.log" 2>&1
echo "== CacheGpu rc=$?"
grep -E "accesses:|^\[  (PASSED|FAILED) |FAILED \]|Failure|Which is|Expected" "$OUT/cache_gpu.log"
for tool in memcheck racecheck synccheck; do
  timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 3 "$T" \
    --gtest_filter='CacheGpuSanitizer.*' > "$OUT/sanitizer_$tool.log" 2>&1
  echo "== compute-sanitizer $tool rc=$?"
  tail -n 3 "$OUT/sanitizer_$tool.log"
done
