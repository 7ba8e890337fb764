#!/bin/bash
# The GPU measurements of issue 3, in one device call. Run from a folder holding the built
# emulated_drives_test and bam-gpu-bench; writes logs and JSON under $OUT. COMMIT names the build.
set -u
cd "$(dirname "$0")"
: "${OUT:=out}" "${COMMIT:=unknown}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current,clocks.sm,clocks.mem \
  --format=csv > "$OUT/nvidia-smi.csv" 2>&1
cat "$OUT/nvidia-smi.csv"
B() { local name=$1; shift; timeout 120 ./bam-gpu-bench --commit "$COMMIT" --label "$name" --json "$OUT/$name.json" "$@" \
  > "$OUT/$name.txt" 2>&1; echo "== $name rc=$?"; tail -n 4 "$OUT/$name.txt"; }

# 1. correctness: all GPU tests, then compute-sanitizer on the small configuration
timeout 120 ./emulated_drives_test > "$OUT/gpu_tests.log" 2>&1; echo "== gpu tests rc=$?"
grep -E "^\[  (PASSED|FAILED) |OK \]|FAILED \]" "$OUT/gpu_tests.log"
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool ./emulated_drives_test --gtest_filter='GpuDrives.*' \
    > "$OUT/sanitizer_$tool.log" 2>&1
  echo "== compute-sanitizer $tool rc=$?"; tail -n 3 "$OUT/sanitizer_$tool.log"
done

# 2. ideal drives on pinned host media vs the ceilings measured in the same run (5 runs each)
B ideal_read_512 --model ideal --io-size 512 --threads 1048576 --mapping warp --ceilings --repeats 5 --media-mib 1024 --min-ios 8000000
B ideal_read_4096 --model ideal --io-size 4096 --threads 1048576 --mapping warp --ceilings --repeats 5 --media-mib 2048 --min-ios 4000000
B ideal_read_512_thread_mapping --model ideal --io-size 512 --threads 1048576 --mapping thread --repeats 5 --media-mib 1024 --min-ios 4000000
B ideal_read_4096_thread_mapping --model ideal --io-size 4096 --threads 1048576 --mapping thread --repeats 5 --media-mib 2048 --min-ios 4000000
B null_512 --model null --threads 1048576 --mapping warp --repeats 5 --media-mib 256 --min-ios 8000000
B null_512_thread_mapping --model null --threads 1048576 --mapping thread --repeats 5 --media-mib 256 --min-ios 4000000
B null_512_q512 --model null --threads 1048576 --queues 512 --mapping warp --repeats 5 --media-mib 256 --min-ios 16000000

# 3. Figure-4 analogue: optane-p5800x, 512 B random reads and writes vs threads, 1-10 drives
for op in read write; do
  for n in 1 2 4 8 10; do
    B fig4_${op}_${n} --model optane-p5800x --op $op --drives $n --threads 1024,4096,16384,65536,262144,1048576 \
      --mapping warp --repeats 3 --media-mib 1024 --min-ios 1000000 --max-seconds 0.25
  done
done
B fig4_pcie_ceiling_512 --model null --threads 1024 --ceilings --repeats 5 --media-mib 1024 --min-ios 1024

# 4. one queue pair vs thread count (dissertation Fig. 5.6)
for m in null ideal; do
  B single_qp_${m} --model $m --queues 1 --threads 32,128,512,1024,2048,4096,8192,16384,65536,262144,1048576 \
    --repeats 3 --media-mib 256 --min-ios 200000
done
