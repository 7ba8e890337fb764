# Call 1 (device tool, one H200), from the repository root: V = the locks that share a word with
# their position (the tail lock with the SQ tail, the CQ lock with the CQ head), against H = the
# build before it (8d320a7's device code, as f416a37): every GPU test and the queue tests under
# compute-sanitizer on V; QD1 and one queue pair (both protocols), Figure 4's 10-SSD reads at
# 1K / 4K threads and the 128-queue `null` point, H and V in turn, 2 rounds.
set -u
cd build/carry && tar xJf bin.tar.xz && mv bin H && tar xJf v.tar.xz && cd ../..
BIN=build/carry/V OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.log 2>&1
echo "gpu tests rc=$?"
grep "^==" $OUT/tests.log
for round in 1 2; do
  for p in hardware emulator; do
    for v in H V; do
      BIN=build/carry/$v OUT=$OUT/r$round/$v PROTOCOL=$p POINTS="qd1_null qd1_optane oneqp_null" \
        bash scripts/gpu/io-path-table.sh > $OUT/r$round-$v-$p.log 2>&1
    done
  done
  mkdir -p $OUT/f4
  for v in H V; do
    for s in 512 4096; do
      timeout 120 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
        --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
        --set workload.duration_s=0.25 --repeat 3 --io-size $s --sweep workload.threads=1024,4096 \
        --report $OUT/f4/r$round-$v-$s.json > $OUT/f4/r$round-$v-$s.txt 2>&1 || echo "f4 $v $s rc=$?"
    done
    for p in hardware emulator; do
      timeout 120 build/carry/$v/nvm-block-bench --backend emulated --pairs 128 --depth 1024 \
        --threads 1048576 --outstanding 1 --repeat 3 --model null --io-size 512 --ios 33554432 \
        --set storage.protocol=$p --report $OUT/f4/r$round-$v-null128-$p.json \
        > $OUT/f4/r$round-$v-null128-$p.txt 2>&1 || echo "null128 $v $p rc=$?"
    done
  done
done
TOOLS="memcheck racecheck" NAMES="host_controller_gpu_test queue_outstanding_gpu_test" \
  BIN=build/carry/V OUT=$OUT/sanitize timeout 200 bash scripts/gpu/sanitize.sh > $OUT/sanitize.log 2>&1
echo "sanitize rc=$?"
cat $OUT/sanitize.log | tail -6
cd $OUT && tar czf c1.tgz tests tests.log r1 r2 r*.log f4 sanitize sanitize.log && rm -rf tests tests.log r1 r2 r*.log f4 sanitize sanitize.log
