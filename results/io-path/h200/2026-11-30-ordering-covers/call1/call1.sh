# Call 1 (device tool, one H200), from the repository root. P = the application's reads cover the
# ordering (this change), K = 241c97c's nvm-block-bench (HEAD before it: the same engine and queue
# code). 1) every GPU test on P's staged binaries (the new emulated_drives test of 455735e runs
# here for the first time); 2) issue 19's table in the hardware protocol (the only one the change
# touches), K then P, one process a point; 3) its three large-footprint points again, P then K;
# 4) Figure 4's 10-SSD reads (hardware protocol, 512 B and 4 KiB, 1K / 4K / 64K threads), K and P
# alternated, 2 rounds.
set -u
cd build/carry && tar xJf kn.tar.xz && tar xJf p.tar.xz && cd ../..
BIN=build/carry/P OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.log 2>&1
echo "tests rc=$?" >> $OUT/tests.log
for v in K P; do
  BIN=build/carry/$v OUT=$OUT/t/$v PROTOCOL=hardware bash scripts/gpu/io-path-table.sh > $OUT/t-$v.log 2>&1
done
for v in P K; do
  BIN=build/carry/$v OUT=$OUT/t2/$v PROTOCOL=hardware POINTS="optane10_1g ideal_512_4g optane4_512" \
    bash scripts/gpu/io-path-table.sh > $OUT/t2-$v.log 2>&1
done
mkdir -p $OUT/f4
for round in 1 2; do
  for v in K P; do
    for st in 512:1024 512:4096 512:65536 4096:1024 4096:4096 4096:65536; do
      s=${st%:*} t=${st#*:}
      timeout 120 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
        --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
        --set workload.duration_s=0.25 --repeat 3 --io-size $s --threads $t \
        --report $OUT/f4/r$round-$v-$s-$t.json > $OUT/f4/r$round-$v-$s-$t.txt 2>&1 || echo "f4 $v $s $t rc=$?"
    done
  done
done
cd $OUT && tar czf c1.tgz tests t t2 f4 *.log && rm -rf tests t t2 f4 t-*.log t2-*.log
