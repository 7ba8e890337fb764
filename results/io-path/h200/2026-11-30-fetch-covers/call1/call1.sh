# Call 1 (device tool, one H200), from the repository root: the own queue's fetch covers its
# waiter (N: the working tree's nvm-block-bench, ordering_read_ref::after_completion with the
# read's own queue) against c61a382's (H), hardware protocol, alternated, 2 rounds: the 10 GiB and
# 4 GiB points, QD1 on null and optane, one queue pair; Figure 4's 10 x 512 B reads at 1K / 4K /
# 16K threads and 10 x 4 KiB reads at 1K threads (256 MiB a drive).
set -u
T0=$SECONDS
cd build/carry && tar xJf hn.tar.xz && tar xJf n.tar.xz && cd ../..
for round in 1 2; do
  for v in N H; do
    BIN=build/carry/$v OUT=$OUT/t/r$round/$v PROTOCOL=hardware \
      POINTS="optane10_1g ideal_512_4g qd1_null qd1_optane oneqp_null" \
      bash scripts/gpu/io-path-table.sh > $OUT/t-r$round-$v.log 2>&1
    mkdir -p $OUT/f4/r$round
    for t in 1024 4096 16384; do
      timeout 60 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
        --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
        --set workload.duration_s=0.25 --repeat 3 --io-size 512 --threads $t \
        --report $OUT/f4/r$round/$v-512-$t.json > $OUT/f4/r$round/$v-512-$t.txt 2>&1 || echo "f4 $v $t rc=$?"
    done
    timeout 60 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-4k-randread.json \
      --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
      --set workload.duration_s=0.25 --repeat 3 --threads 1024 \
      --report $OUT/f4/r$round/$v-4k-1024.json > $OUT/f4/r$round/$v-4k-1024.txt 2>&1 || echo "f4 4k $v rc=$?"
  done
done
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c1.tgz t f4 t-*.log time.txt && rm -rf t f4 t-*.log
