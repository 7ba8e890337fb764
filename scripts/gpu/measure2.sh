#!/bin/bash
# Second device call: Figure-4 analogue and single-queue sweep after the booking-horizon fix,
# plus the GPU tests and a re-check of ideal/null. All output goes into one tarball under $OUT.
set -u
cd "$(dirname "$0")"
: "${OUT:=out}" "${COMMIT:=unknown}"
R=$OUT/r; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > "$R/nvidia-smi.csv" 2>&1
B() { local name=$1; shift; timeout 60 ./bam-gpu-bench --commit "$COMMIT" --label "$name" --json "$R/$name.json" "$@" \
  > "$R/$name.txt" 2>&1; echo "== $name rc=$?"; cat "$R/$name.txt"; }
timeout 60 ./emulated_drives_test > "$R/gpu_tests.log" 2>&1; echo "== gpu tests rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED \]" "$R/gpu_tests.log"
B ideal_read_512 --model ideal --io-size 512 --threads 1048576 --mapping warp --ceilings --repeats 5 --media-mib 1024 --min-ios 8000000
B null_512 --model null --threads 1048576 --mapping warp --repeats 5 --media-mib 256 --min-ios 8000000
for op in read write; do
  for n in 1 2 4 8 10; do
    B fig4_${op}_${n} --model optane-p5800x --op $op --drives $n --threads 1024,4096,16384,65536,262144,1048576 \
      --mapping warp --repeats 3 --media-mib 1024 --min-ios 1000000 --max-seconds 0.25
  done
done
for m in null ideal; do
  B single_qp_${m} --model $m --queues 1 --threads 32,128,512,1024,2048,4096,8192,16384,65536,262144,1048576 \
    --repeats 3 --media-mib 256 --min-ios 20000
done
tar czf "$OUT/results.tar.gz" -C "$R" .
rm -rf "$R"
