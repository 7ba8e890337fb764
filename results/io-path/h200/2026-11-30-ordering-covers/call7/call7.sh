# Call 7 (device tool, one H200), from the repository root: is the covers' cost at 10 x 512 B reads
# at 1K threads and at QD1 optane what the covers do, or the code that takes the mark? K = 241c97c,
# G = f608fc2 (the covers with the review's fixes), C0 = f608fc2 + c0.patch (the mark taken and
# kept live to the cover's test as in G, but never covering). Figure 4's 10-SSD 512 B reads at 1K
# threads, K, G, C0 alternated, 3 rounds; QD1 null and optane, the same, 2 rounds. Hardware
# protocol.
set -u
cd build/carry && tar xJf kn.tar.xz && tar xJf gc.tar.xz && cd ../..
mkdir -p $OUT/f4
for round in 1 2 3; do
  for v in K G C0; do
    timeout 60 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
      --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
      --set workload.duration_s=0.25 --repeat 3 --io-size 512 --threads 1024 \
      --report $OUT/f4/r$round-$v.json > $OUT/f4/r$round-$v.txt 2>&1 || echo "f4 $v rc=$?"
  done
done
for round in 1 2; do
  for v in K G C0; do
    BIN=build/carry/$v OUT=$OUT/q/r$round/$v PROTOCOL=hardware POINTS="qd1_null qd1_optane" \
      bash scripts/gpu/io-path-table.sh > $OUT/q-r$round-$v.log 2>&1
  done
done
cd $OUT && tar czf c7.tgz f4 q q-*.log && rm -rf f4 q q-*.log
