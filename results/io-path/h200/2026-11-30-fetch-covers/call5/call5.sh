# Call 5 (device tool, one H200), from the repository root: does a fetch stamp cover sooner?
# FP = call 4's F (fetch stamps) with call 3's probe (scripts/gpu/probes/ordering-wait.patch: each read's time from its
# completion to read_ordered's return, printed as a mean), HP = c61a382 with the same probe
# (call 3's). Hardware protocol, alternated, 2 rounds: the 10 GiB and 4 GiB points, one queue
# pair; Figure 4's 10 x 512 B reads at 1K / 4K threads. Then compute-sanitizer (memcheck,
# racecheck) over host_controller_gpu_test's small cases, the stamped one among them (F).
set -u
T0=$SECONDS
cd build/carry && tar xJf fp.tar.xz && tar xJf f.tar.xz && cd ../..
for round in 1 2; do
  for v in FP HP; do
    BIN=build/carry/$v OUT=$OUT/t/r$round/$v PROTOCOL=hardware \
      POINTS="optane10_1g ideal_512_4g oneqp_null" \
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
mkdir -p $OUT/san
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  timeout 200 $CS --tool $tool --error-exitcode 9 build/carry/F/host_controller_gpu_test \
    --gtest_filter='HostControllerGpu.SanitizerCase*' > $OUT/san/$tool.log 2>&1
  echo "sanitizer $tool rc=$?" >> $OUT/san/rc.txt
done
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c5.tgz t f4 san t-*.log time.txt && rm -rf t f4 t-*.log
