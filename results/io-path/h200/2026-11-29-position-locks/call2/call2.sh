# Call 2 (device tool, one H200), from the repository root: the 128-queue `null` point (1M
# threads, both protocols), QD1 `null` and one queue pair, for H (before), V (call 1's), V2 (V,
# the CQ lock taken on the hint's word: no load of the word beside the entry's) and V3 (V, the
# word loaded after the entry is seen posted, as the lock was before, and no lock try when the
# head moved since the hint), in turn, 2 rounds.
set -u
cd build/carry && tar xJf bin.tar.xz && mv bin H && tar xJf v.tar.xz && tar xJf v23.tar.xz && cd ../..
mkdir -p $OUT/n
for round in 1 2; do
  for v in H V V2 V3; do
    for p in emulator hardware; do
      timeout 120 build/carry/$v/nvm-block-bench --backend emulated --pairs 128 --depth 1024 \
        --threads 1048576 --outstanding 1 --repeat 3 --model null --io-size 512 --ios 33554432 \
        --set storage.protocol=$p --report $OUT/n/r$round-$v-null128-$p.json \
        > $OUT/n/r$round-$v-null128-$p.txt 2>&1 || echo "null128 $v $p rc=$?"
      BIN=build/carry/$v OUT=$OUT/r$round/$v PROTOCOL=$p POINTS="qd1_null oneqp_null" \
        bash scripts/gpu/io-path-table.sh > $OUT/r$round-$v-$p.log 2>&1
    done
  done
done
cd $OUT && tar czf c2.tgz n r1 r2 r*.log && rm -rf n r1 r2 r*.log
