# Call 3 (device tool, one H200), from the repository root: where the hardware protocol's reads
# wait for their ordering. NP and HP are call 1's N and H with one probe in nvm-block-bench's
# one-at-a-time loop (scripts/gpu/probes/ordering-wait.patch: block_io written out, each read's time from its completion
# to read_ordered's return, summed per thread, printed as a mean by the host; call 2 had put it in
# the deep path, which --outstanding 1 does not take, and printed nothing). Hardware protocol, alternated, 2 rounds: the 10 GiB
# and 4 GiB points, one queue pair, Figure 4's 10 x 512 B reads at 1K / 4K threads.
set -u
T0=$SECONDS
cd build/carry && tar xJf np.tar.xz && cd ../..
for round in 1 2; do
  for v in NP HP; do
    BIN=build/carry/$v OUT=$OUT/t/r$round/$v PROTOCOL=hardware \
      POINTS="optane10_1g ideal_512_4g oneqp_null qd1_null" \
      bash scripts/gpu/io-path-table.sh > $OUT/t-r$round-$v.log 2>&1
    mkdir -p $OUT/f4/r$round
    for t in 1024 4096; do
      timeout 60 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
        --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
        --set workload.duration_s=0.25 --repeat 3 --io-size 512 --threads $t \
        --report $OUT/f4/r$round/$v-512-$t.json > $OUT/f4/r$round/$v-512-$t.txt 2>&1 || echo "f4 $v $t rc=$?"
    done
  done
done
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c3.tgz t f4 t-*.log time.txt && rm -rf t f4 t-*.log
