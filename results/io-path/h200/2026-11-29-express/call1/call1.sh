# Call 1 (device tool, one H200), from the repository root: the engine's express post and its
# idle doorbell polls against 0937a7c. A = 0937a7c; E1 = A + e1.patch (a turn that took one
# command due at once, with nothing parked, posts it without the pending table); E12 = E1 +
# e2 (an idle warp with nothing parked polls its doorbells up to 4 times instead of sleeping
# 64 ns and running a whole turn). QD1 and one queue pair, both protocols, 2 rounds; Figure 4's
# 10-SSD reads at 1K and 4K threads and the 1 GiB / 10 GiB points (hardware), one round.
set -u
cd build/carry && tar xJf bins.tar.xz && cd ../..
for round in 1 2; do
  for p in hardware emulator; do
    for v in A E1 E12; do
      BIN=build/carry/$v OUT=$OUT/r$round/$v PROTOCOL=$p POINTS="qd1_null qd1_optane oneqp_null" \
        bash scripts/gpu/io-path-table.sh > $OUT/r$round-$v-$p.log 2>&1
    done
  done
done
(cd $OUT && tar czf qd1.tgz r1 r2 r*.log && rm -rf r1 r2 r*.log)
mkdir -p $OUT/f4
for v in A E1 E12; do
  for s in 512 4096; do
    timeout 120 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
      --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
      --set workload.duration_s=0.25 --repeat 3 --io-size $s --sweep workload.threads=1024,4096 \
      --report $OUT/f4/$v-$s.json > $OUT/f4-$v-$s.txt 2>&1 || echo "f4 $v $s rc=$?"
  done
done
(cd $OUT && tar czf f4.tgz f4 f4-*.txt && rm -rf f4 f4-*.txt)
for v in A E1 E12; do
  BIN=build/carry/$v OUT=$OUT/big/$v PROTOCOL=hardware POINTS="ideal_512_1g optane10_1g" \
    bash scripts/gpu/io-path-table.sh > $OUT/big-$v.log 2>&1
done
(cd $OUT && tar czf big.tgz big big-*.log && rm -rf big big-*.log)
