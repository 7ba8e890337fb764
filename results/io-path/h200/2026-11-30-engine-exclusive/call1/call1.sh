# Call 1 (device tool, one H200), from the repository root: does an engine whose blocks share no
# SM with the application (scripts/gpu/probes/engine-exclusive.patch: each engine block takes all
# of its SM's shared memory) carry the 10 GiB point's tail and rate better? G = f608fc2 staged
# (HEAD df25096's device code, scripts/gpu/ptx-same), X = df25096 + engine-exclusive.patch.
# The 10 GiB point in both protocols and the 4 GiB `ideal` point, X and G alternated, 2 rounds;
# Figure 4's 10-SSD 512 B reads at 1K / 4K / 16K / 1M threads and 4 KiB reads at 1K / 64K
# threads (hardware protocol), and QD1 null, one round each.
set -u
cd build/carry && tar xJf gc.tar.xz && tar xJf x.tar.xz && cd ../..
nvidia-smi > $OUT/nvidia-smi.txt 2>&1
for round in 1 2; do
  for v in X G; do
    for proto in hardware emulator; do
      BIN=build/carry/$v OUT=$OUT/t/r$round/$v PROTOCOL=$proto POINTS="optane10_1g" \
        bash scripts/gpu/io-path-table.sh > $OUT/t-r$round-$v-$proto.log 2>&1
    done
    BIN=build/carry/$v OUT=$OUT/t/r$round/$v PROTOCOL=hardware POINTS="ideal_512_4g" \
      bash scripts/gpu/io-path-table.sh >> $OUT/t-r$round-$v-hardware.log 2>&1
  done
done
mkdir -p $OUT/f4
for v in X G; do
  for job in "512 1024" "512 4096" "512 16384" "512 1048576" "4096 1024" "4096 65536"; do
    set -- $job
    timeout 60 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
      --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
      --set workload.duration_s=0.25 --repeat 3 --io-size $1 --threads $2 \
      --report $OUT/f4/$v-$1-$2.json > $OUT/f4/$v-$1-$2.txt 2>&1 || echo "f4 $v $1 $2 rc=$?"
  done
  BIN=build/carry/$v OUT=$OUT/q/$v PROTOCOL=hardware POINTS="qd1_null" \
    bash scripts/gpu/io-path-table.sh > $OUT/q-$v.log 2>&1
done
cd $OUT && tar czf c1.tgz t f4 q t-*.log q-*.log nvidia-smi.txt && rm -rf t f4 q t-*.log q-*.log
