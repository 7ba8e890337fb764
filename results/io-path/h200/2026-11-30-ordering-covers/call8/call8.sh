# Call 8 (device tool, one H200), from the repository root: a cover only while an extra read is in
# flight? K = 241c97c, G = f608fc2 (the covers), VL = f608fc2 + vl.patch (a read covers only where
# its drive's extra-read lock is held: a free lock is taken by a waiter whose read covers up to the
# tail). Figure 4's 10-SSD 512 B reads at 1K and 4K threads, K, G, VL alternated, 2 rounds.
# Hardware protocol.
set -u
cd build/carry && tar xJf kn.tar.xz && tar xJf gv.tar.xz && cd ../..
mkdir -p $OUT/f4
for round in 1 2; do
  for t in 1024 4096; do
    for v in K G VL; do
      timeout 60 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
        --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
        --set workload.duration_s=0.25 --repeat 3 --io-size 512 --threads $t \
        --report $OUT/f4/r$round-$v-$t.json > $OUT/f4/r$round-$v-$t.txt 2>&1 || echo "f4 $v $t rc=$?"
    done
  done
done
cd $OUT && tar czf c8.tgz f4 && rm -rf f4
