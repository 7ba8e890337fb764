# Call 6 (device tool, one H200), from the repository root: `gpu.engine_placement first-sms` as
# committed (H = the commit that adds it, staged with scripts/gpu/run-gpu-tests.sh --stage).
# Every GPU test (emulated_drives_test's FirstSms cases and the refused count among them), then
# the 10 GiB point in both protocols with first-sms (F) and the default placement (S), the same
# binary, alternated, 2 rounds; and Figure 4's 10 x 512 B reads at 16K / 1M threads, F and S.
set -u
T0=$SECONDS
cd build/carry && tar xJf h.tar.xz && cd ../..
BIN=build/carry/H OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.log 2>&1
echo "tests rc=$? $((SECONDS-T0)) s" >> $OUT/tests.log
for round in 1 2; do
  for v in F S; do
    case $v in F) X="--set gpu.engine_placement=first-sms" ;; S) X="" ;; esac
    for proto in hardware emulator; do
      BIN=build/carry/H OUT=$OUT/t/r$round/$v PROTOCOL=$proto POINTS="optane10_1g" EXTRA="$X" \
        bash scripts/gpu/io-path-table.sh > $OUT/t-r$round-$v-$proto.log 2>&1
    done
  done
done
mkdir -p $OUT/f4
for v in F S; do
  case $v in F) X="--set gpu.engine_placement=first-sms" ;; S) X="" ;; esac
  for t in 16384 1048576; do
    timeout 60 build/carry/H/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
      --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
      --set workload.duration_s=0.25 --repeat 3 --io-size 512 --threads $t $X \
      --report $OUT/f4/$v-512-$t.json > $OUT/f4/$v-512-$t.txt 2>&1 || echo "f4 $v $t rc=$?"
  done
done
echo "all $((SECONDS-T0)) s" >> $OUT/tests.log
cd $OUT && tar czf c6.tgz tests t f4 t-*.log && rm -rf tests t f4 t-*.log
