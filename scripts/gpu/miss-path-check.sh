#!/bin/bash
# Issue 20's lean miss path on the GPU: the cache's GPU tests of the new build (every case of
# cache_gpu_test: the million-thread test on two GPU-emulated SSDs with verified data, the error
# and trap cases through the out-of-line miss path; with SANITIZE=1 instead the million-thread
# test and compute-sanitizer memcheck, racecheck and synccheck of the small case:
# scripts/gpu/cache-tests.sh), then issue 20's
# cache-bench points for the old and the new build in alternation, each process a median of 3
# runs (scripts/gpu/regression-points.sh):
#   cb_cold_ideal_4k  cold 4 KiB lines over 4 ideal SSDs, array_ref reuse c = 512, random
#   cb_miss_optane    cold 512 B lines over 4 optane-p5800x, reuse c = 64, random
#   cb_hot_reuse      hot array_ref reuse, 8 KiB lines, warp layout, c = 64
#   cb_hot_coalesced  hot warp-coalesced bam::array, 8 KiB lines, warp layout, c = 32
#   nbb_ideal_512     nvm-block-bench 512 B random reads, 1 ideal SSD x 128 QP: the queue's own
#                     rate (nvm-block-bench calls the queue inline; a change to it shows here)
# OLD and NEW: folders of stripped binaries, each with cache-bench and nvm-block-bench (the new
# one also cache_gpu_test): `scripts/gpu/run-gpu-tests.sh --stage DIR` stages both. Logs and reports under
# $OUT; the table in $OUT/table.md and $OUT/table.json. About 8 minutes on an H100 (ROUNDS=1,
# no sanitizers; each sanitizer adds up to 4 minutes).
# TESTS=0 skips the tests; POINTS picks points (to split the work over runs of under 10 minutes).
# Usage: OLD=dir NEW=dir OUT=out [ROUNDS=1] [SANITIZE=0] [TESTS=1] [POINTS="..."]
#        scripts/gpu/miss-path-check.sh
set -u
: "${OLD:?folder of the old build}" "${NEW:?folder of the new build}" "${OUT:=out}"
: "${ROUNDS:=1}" "${SANITIZE:=0}" "${TESTS:=1}"
: "${POINTS:=cb_cold_ideal_4k cb_miss_optane cb_hot_reuse cb_hot_coalesced nbb_ideal_512}"
here=$(dirname "$0")
mkdir -p "$OUT/tests"
status=0
if [ "$TESTS" = 0 ]; then
  echo "== cache_gpu_test skipped (TESTS=0)"
elif [ "$SANITIZE" = 1 ]; then
  T="$NEW/cache_gpu_test" OUT="$OUT/tests" "$here/cache-tests.sh" || status=1
else
  timeout 300 "$NEW/cache_gpu_test" > "$OUT/tests/cache_gpu.log" 2>&1
  rc=$?
  echo "== cache_gpu_test (new, every case) rc=$rc"
  grep -E "accesses:|^\[  (PASSED|FAILED) |FAILED \]|Failure|Which is|Expected" \
    "$OUT/tests/cache_gpu.log"
  [ $rc -eq 0 ] || status=1
fi
OLD=$OLD NEW=$NEW OUT=$OUT ROUNDS=$ROUNDS POINTS=$POINTS "$here/regression-points.sh" || status=1
/usr/bin/env python3 "$here/regression-table.py" "$OUT" --json "$OUT/table.json" \
  | tee "$OUT/table.md"
exit $status
