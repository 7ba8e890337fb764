#!/bin/bash
# Issue 14's GPU recovery (Aborts of lost commands through an engine-served admin queue,
# lib/src/emu/gpu/gpu_recovery.hpp) on a GPU: its tests, the fault soak's drop runs, and the
# engine's rate before and after (the held tables and admin polling are in the engine's loop).
# Stage on the build machine:
#   scripts/gpu/recovery-check.sh --stage DIR OLD_BUILD_DIR   (OLD_BUILD_DIR: a build tree, or a
#   folder with a stripped nvm-block-bench, of the commit before the change)
# Run on the GPU machine: BIN=DIR OUT=out scripts/gpu/recovery-check.sh (about 6 minutes).
# Exit status 1 when a test failed.
set -u
if [ "${1:-}" = --stage ]; then
  dir=$2 old=$3 build=${BUILD:-build/default}
  mkdir -p "$dir/new" "$dir/old"
  for t in emulated_drives_test nbb_gpu_test; do
    strip -o "$dir/$t" "$(find "$build/tests" -name "$t" -type f -perm -u+x | head -n 1)"
  done
  strip -o "$dir/new/nvm-block-bench" "$build/tools/nvm-block-bench/nvm-block-bench"
  # A build tree's own binary, not the host-only copy in its QEMU initramfs.
  f=$old/tools/nvm-block-bench/nvm-block-bench
  [ -x "$f" ] || f=$old/nvm-block-bench
  [ -x "$f" ] || { echo "no nvm-block-bench in $old" >&2; exit 1; }
  strip -o "$dir/old/nvm-block-bench" "$f"
  cp "$(dirname "$0")/regression-points.sh" "$dir/"
  exit 0
fi
: "${BIN:=$(dirname "$0")}" "${OUT:=out}"
mkdir -p "$OUT"
export CUDA_MODULE_LOADING=EAGER NBB_BIN="$BIN/new/nvm-block-bench"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/nvidia-smi.csv" 2>&1
status=0
for t in emulated_drives_test nbb_gpu_test; do
  t0=$SECONDS
  timeout 400 "$BIN/$t" > "$OUT/$t.log" 2>&1
  rc=$?
  echo "== $t rc=$rc $((SECONDS - t0)) s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|OK \] Gpu(Recovery|Faults)" "$OUT/$t.log" |
    head -n 12
  [ $rc -eq 0 ] || status=1
done
# The engine's rate with recovery on (the default of every tool) vs the build before it.
OLD="$BIN/old" NEW="$BIN/new" OUT="$OUT/rate" ROUNDS=2 \
  POINTS="nbb_null_512 nbb_ideal_512 nbb_optane4_512" bash "$BIN/regression-points.sh" ||
  status=1
exit $status
