# Call 2 (device tool, one H200), from the repository root. K = 241c97c's nvm-block-bench (before),
# P = call 1's build (covers: a relaxed head load and a release fetch_max before the wait's own
# head load), P2 = P with the wait's first head load doing both (one round trip, as before) and
# the cover's fetch_max relaxed on the device (no fence). Hardware protocol only. Figure 4's
# 10-SSD 512 B reads at 1K and 4K threads and 4 KiB reads at 1K threads, the three builds
# alternated, 2 rounds; then the 10 GiB point, QD1 null / optane and the 1 GiB ideal point, one
# process each per build. First every GPU test on P2's staged binaries.
set -u
cd build/carry && tar xJf kn.tar.xz && tar xJf pn.tar.xz && tar xJf p2.tar.xz && cd ../..
BIN=build/carry/P2 OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.log 2>&1
echo "tests rc=$?" >> $OUT/tests.log
mkdir -p $OUT/f4
for round in 1 2; do
  for v in K P P2; do
    for st in 512:1024 512:4096 4096:1024; do
      s=${st%:*} t=${st#*:}
      timeout 120 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
        --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
        --set workload.duration_s=0.25 --repeat 3 --io-size $s --threads $t \
        --report $OUT/f4/r$round-$v-$s-$t.json > $OUT/f4/r$round-$v-$s-$t.txt 2>&1 || echo "f4 $v $s $t rc=$?"
    done
  done
done
for v in K P P2; do
  BIN=build/carry/$v OUT=$OUT/t/$v PROTOCOL=hardware POINTS="optane10_1g qd1_null qd1_optane ideal_512_1g" \
    bash scripts/gpu/io-path-table.sh > $OUT/t-$v.log 2>&1
done
cd $OUT && tar czf c2.tgz tests tests.log f4 t t-*.log && rm -rf tests f4 t t-*.log
