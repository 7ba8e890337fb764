#!/bin/bash
# Re-check after the last GPU-side changes (engine on the shared process_nvm; CID-pool back-off):
# the GPU tests, the single-queue sweep and a quick ideal/null check. One tarball under $OUT.
set -u
cd "$(dirname "$0")"
: "${OUT:=out}" "${COMMIT:=unknown}"
R=$OUT/r; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/nvidia-smi.csv" 2>&1
B() { local name=$1; shift; timeout 50 ./bam-gpu-bench --commit "$COMMIT" --label "$name" --json "$R/$name.json" "$@" \
  > "$R/$name.txt" 2>&1; echo "== $name rc=$?"; cat "$R/$name.txt"; }
timeout 60 ./emulated_drives_test > "$R/gpu_tests.log" 2>&1; echo "== gpu tests rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED \]|Failure" "$R/gpu_tests.log"
B single_qp_null --model null --queues 1 --threads 32,512,1024,2048,4096,16384,65536,262144 --repeats 3 --min-ios 20000
B ideal_read_512 --model ideal --threads 1048576 --mapping warp --ceilings --repeats 5 --media-mib 1024 --min-ios 8000000
B null_512 --model null --threads 1048576 --mapping warp --repeats 5 --media-mib 256 --min-ios 8000000
tar czf "$OUT/results.tar.gz" -C "$R" .
rm -rf "$R"
