# Call 4 (device tool, one H200), from the repository root: fetch stamps (F: the working tree,
# staged with scripts/gpu/run-gpu-tests.sh --stage) against c61a382's nvm-block-bench (H). Every
# GPU test on F; then the hardware protocol, alternated, 2 rounds: the 10 GiB and 4 GiB points,
# QD1 on null and optane, one queue pair; Figure 4's 10 x 512 B reads at 1K / 4K / 16K threads
# and 10 x 4 KiB reads at 1K threads (256 MiB a drive).
set -u
T0=$SECONDS
cd build/carry && tar xJf f.tar.xz && tar xJf hn.tar.xz && cd ../..
BIN=build/carry/F OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.log 2>&1
echo "tests rc=$? $((SECONDS-T0)) s" >> $OUT/tests.log
for round in 1 2; do
  for v in F H; do
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
cd $OUT && tar czf c4.tgz tests tests.log t f4 t-*.log time.txt && rm -rf tests t f4 t-*.log
