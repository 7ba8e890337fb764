# Call 4 (device tool, one H200), from the repository root: where the engine loses when more reads
# wait. P = V with scripts/gpu/probes/engine-profile.patch made again for 6b62f71's engine (the
# express post and the handover in the profiled loop) and a line per engine block: its SM, its
# warps' busy share and the entries they took. The 10 GiB and 4 GiB points as the table counts
# their reads and as timed runs (call 2), one run each (--repeat 1), both protocols at 10 GiB.
# Then issue 19's table on V (6b62f71's code) in both protocols, one process a point.
set -u
T0=$SECONDS
cd build/carry && tar xJf p.tar.xz && tar xJf v.tar.xz && cd ../..
export CUDA_MODULE_LOADING=EAGER
mkdir -p $OUT/prof
run() {  # name, then the arguments
  local name=$1; shift
  timeout 300 build/carry/P/nvm-block-bench "$@" --report $OUT/prof/$name.json > $OUT/prof/$name.txt 2>&1
  echo "== $name rc=$? $((SECONDS-T0)) s: $(grep -E ' read :' $OUT/prof/$name.txt | head -1)" >> $OUT/prof.log
}
for proto in hardware emulator; do
  for point in optane10_1g ideal_512_4g; do
    [ $proto = emulator ] && [ $point = ideal_512_4g ] && continue
    a=$(PROTOCOL=$proto bash scripts/gpu/io-path-table.sh --args $point | sed -E 's/--repeat 3/--repeat 1/; s/ --measure-ceilings//')
    # shellcheck disable=SC2086
    run ${point}_${proto}_count $a
    timed=$(echo "$a" | sed -E 's/--ios [0-9]+/--set workload.ios=0 --set workload.duration_s=1.5/')
    # shellcheck disable=SC2086
    run ${point}_${proto}_timed $timed
  done
done
echo "probes $((SECONDS-T0)) s" >> $OUT/prof.log
for proto in hardware emulator; do
  BIN=build/carry/V OUT=$OUT/table PROTOCOL=$proto bash scripts/gpu/io-path-table.sh \
    > $OUT/table-$proto.log 2>&1
done
/usr/bin/python3 scripts/gpu/io-path-table.py $OUT/table > $OUT/table.md 2>&1
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c4.tgz prof prof.log table table-*.log table.md time.txt && rm -rf prof table table-*.log
