# Call 2 (device tool, one H200), from the repository root. A = 0937a7c; E1 = A + e1.patch (the
# engine's express post); E1C = E1 + c.patch (a waiter's poll loads the CQ entry at the head it
# saw last with its other words; the CQ holder's first batch read from the head the caller saw,
# with the head's load); E1C3 = E1C with e1-e3.patch's engine (E1, and a single command that
# moves no data skips move_data). QD1 and one queue pair, both protocols, 2 rounds; Figure 4's
# 1- and 10-SSD reads at 1K and 4K threads, the 1 GiB and 10 GiB points (hardware), one round.
set -u
cd build/carry && tar xJf bins.tar.xz && cd ../..
V="A E1 E1C E1C3"
for round in 1 2; do
  for p in hardware emulator; do
    for v in $V; do
      BIN=build/carry/$v OUT=$OUT/r$round/$v PROTOCOL=$p POINTS="qd1_null qd1_optane oneqp_null" \
        bash scripts/gpu/io-path-table.sh > $OUT/r$round-$v-$p.log 2>&1
    done
  done
done
(cd $OUT && tar czf qd1.tgz r1 r2 r*.log && rm -rf r1 r2 r*.log)
mkdir -p $OUT/f4
for n in 1 10; do
  for v in $V; do
    for s in 512 4096; do
      timeout 120 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
        --set storage.ssd_count=$n --set storage.media.size_bytes=268435456 --set workload.ios=0 \
        --set workload.duration_s=0.25 --repeat 3 --io-size $s --sweep workload.threads=1024,4096 \
        --report $OUT/f4/$v-$n-$s.json > $OUT/f4/$v-$n-$s.txt 2>&1 || echo "f4 $v $n $s rc=$?"
    done
  done
done
(cd $OUT && tar czf f4.tgz f4 && rm -rf f4)
for v in $V; do
  BIN=build/carry/$v OUT=$OUT/big/$v PROTOCOL=hardware POINTS="ideal_512_1g optane10_1g" \
    bash scripts/gpu/io-path-table.sh > $OUT/big-$v.log 2>&1
done
(cd $OUT && tar czf big.tgz big big-*.log && rm -rf big big-*.log)
