# Call 5 (device tool, one H200), from the repository root: the code as committed (N's engine
# with the completion's stores in one function for both posts): every GPU test, QD1 (both
# protocols, 2 rounds) and Figure 4's 10-SSD reads at 1K and 4K threads, alternated with
# A = 0937a7c.
set -u
cd build/carry && tar xJf bin.tar.xz && tar xJf a.tar.xz && cd ../..
BIN=build/carry/bin OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.log 2>&1
echo "gpu tests rc=$?"
grep "^==" $OUT/tests.log
for round in 1 2; do
  for p in hardware emulator; do
    for v in A bin; do
      BIN=build/carry/$v OUT=$OUT/r$round/$v PROTOCOL=$p POINTS="qd1_null qd1_optane" \
        bash scripts/gpu/io-path-table.sh > $OUT/r$round-$v-$p.log 2>&1
    done
  done
done
mkdir -p $OUT/f4
for v in A bin; do for s in 512 4096; do
  timeout 120 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
    --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
    --set workload.duration_s=0.25 --repeat 3 --io-size $s --sweep workload.threads=1024,4096 \
    --report $OUT/f4/$v-$s.json > $OUT/f4/$v-$s.txt 2>&1 || echo "f4 $v $s rc=$?"
done; done
cd $OUT && tar czf c5.tgz tests tests.log r1 r2 r*.log f4 && rm -rf tests tests.log r1 r2 r*.log f4
