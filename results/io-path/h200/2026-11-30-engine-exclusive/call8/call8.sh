# Call 8 (device tool, one H200), from the repository root: an engine of 8 blocks on the first
# SMs (F8: --set gpu.engine_blocks=8 --set gpu.engine_placement=first-sms; SMs 0-7, each with a
# whole group's share of host reads in call 2's probe) against the default (S: 16 blocks, 17 in
# the hardware protocol at 10 SSDs, where the scheduler puts them), H = c61a382's nvm-block-bench:
# the 10 GiB point in both protocols and the 4 GiB `ideal` point (hardware), alternated, 2 rounds;
# then Figure 4's 10 x 512 B reads at 4K / 16K / 1M threads, F8 and S.
set -u
T0=$SECONDS
cd build/carry && tar xJf hn.tar.xz && cd ../..
F8="--set gpu.engine_blocks=8 --set gpu.engine_placement=first-sms"
for round in 1 2; do
  for v in F8 S; do
    case $v in F8) X="$F8" ;; S) X="" ;; esac
    for proto in hardware emulator; do
      BIN=build/carry/H OUT=$OUT/t/r$round/$v PROTOCOL=$proto POINTS="optane10_1g" EXTRA="$X" \
        bash scripts/gpu/io-path-table.sh > $OUT/t-r$round-$v-$proto.log 2>&1
    done
    BIN=build/carry/H OUT=$OUT/t/r$round/$v PROTOCOL=hardware POINTS="ideal_512_4g" EXTRA="$X" \
      bash scripts/gpu/io-path-table.sh >> $OUT/t-r$round-$v-hardware.log 2>&1
  done
done
mkdir -p $OUT/f4
for v in F8 S; do
  case $v in F8) X="$F8" ;; S) X="" ;; esac
  for t in 4096 16384 1048576; do
    timeout 60 build/carry/H/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
      --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
      --set workload.duration_s=0.25 --repeat 3 --io-size 512 --threads $t $X \
      --report $OUT/f4/$v-512-$t.json > $OUT/f4/$v-512-$t.txt 2>&1 || echo "f4 $v $t rc=$?"
  done
done
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c8.tgz t f4 t-*.log time.txt && rm -rf t f4 t-*.log
