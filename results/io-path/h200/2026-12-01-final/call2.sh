#!/bin/bash
# Call 2 (as run): with ef98daf's binaries (build/carry/g10.tar.xz, as call 1): Figure 4
# (scripts/sweep configs/sweeps/nbb-fig4.json: 1-10 SSDs x 256 MiB, 3 processes each, and the
# ceilings), then compute-sanitizer (memcheck, racecheck, synccheck) over the small cases of the
# GPU-side queue code (scripts/gpu/sanitize.sh). Raw files in /tmp/raw, tarred.
set -u
T0=$SECONDS
[ -d /tmp/g10 ] || tar xJf build/carry/g10.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw2
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
timeout 480 /usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin /tmp/g10 \
  --out $R/fig4 --gpu h200 --session 2026-12-01-ef98daf-x3 --stop-after 440 \
  > "$R/sweep.log" 2>&1
echo "== sweep rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/fig4.tgz" fig4 sweep.log nvidia-smi.txt)
BIN=/tmp/g10 OUT=$R/sanitize TOOLS="memcheck racecheck synccheck" \
  NAMES="host_controller_gpu_test queue_outstanding_gpu_test" bash scripts/gpu/sanitize.sh \
  > "$R/sanitize.txt" 2>&1
echo "== sanitize rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/sanitize.tgz" sanitize sanitize.txt)
