# Call 3 (device tool, one H200), from the repository root: the engine's blocks placed one per SM
# on SMs 0 .. blocks-1 (scripts/gpu/probes/engine-place.patch on df25096, BAM_ENGINE_PLACE=1:
# on this H200 those SMs spread over the GPU's groups evenly, call 2's first16 set), against the
# same binary with the block scheduler's placement (BAM_ENGINE_PLACE=0, P0) and G = f608fc2 staged
# (HEAD's device code). The 10 GiB point in both protocols and the 4 GiB `ideal` point (hardware),
# P1 / P0 / G alternated, 2 rounds; Figure 4's 10-SSD 512 B reads at 1K / 4K / 16K / 1M threads
# and 4 KiB reads at 1K / 64K threads (hardware protocol) and QD1 null, P1 and P0, one round.
set -u
cd build/carry && tar xJf gc.tar.xz && tar xJf p.tar.xz && cd ../..
nvidia-smi > $OUT/nvidia-smi.txt 2>&1
run_as() {  # variant: P1, P0 or G
  case $1 in
    P1) export BAM_ENGINE_PLACE=1; BIN=build/carry/P ;;
    P0) export BAM_ENGINE_PLACE=0; BIN=build/carry/P ;;
    G) unset BAM_ENGINE_PLACE; BIN=build/carry/G ;;
  esac
}
for round in 1 2; do
  for v in P1 P0 G; do
    run_as $v
    for proto in hardware emulator; do
      BIN=$BIN OUT=$OUT/t/r$round/$v PROTOCOL=$proto POINTS="optane10_1g" \
        bash scripts/gpu/io-path-table.sh > $OUT/t-r$round-$v-$proto.log 2>&1
    done
    BIN=$BIN OUT=$OUT/t/r$round/$v PROTOCOL=hardware POINTS="ideal_512_4g" \
      bash scripts/gpu/io-path-table.sh >> $OUT/t-r$round-$v-hardware.log 2>&1
  done
done
mkdir -p $OUT/f4
for v in P1 P0; do
  run_as $v
  for job in "512 1024" "512 4096" "512 16384" "512 1048576" "4096 1024" "4096 65536"; do
    set -- $job
    timeout 60 $BIN/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
      --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
      --set workload.duration_s=0.25 --repeat 3 --io-size $1 --threads $2 \
      --report $OUT/f4/$v-$1-$2.json > $OUT/f4/$v-$1-$2.txt 2>&1 || echo "f4 $v $1 $2 rc=$?"
  done
  BIN=$BIN OUT=$OUT/q/$v PROTOCOL=hardware POINTS="qd1_null" \
    bash scripts/gpu/io-path-table.sh > $OUT/q-$v.log 2>&1
done
cd $OUT && tar czf c3.tgz t f4 q t-*.log q-*.log && rm -rf t f4 q t-*.log q-*.log
