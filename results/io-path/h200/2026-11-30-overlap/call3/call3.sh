# Call 3 (device tool, one H200), from the repository root: N = 0586d46 + the reports'
# in_flight_mean (Little's law) and nvm-block-bench's client_threads (the most I/O-kernel threads
# resident at once, counted by its blocks; the share of what they could keep in flight that was),
# built before the commit (reports name 0586d46-dirty). nbb_gpu_test and emulated_drives_test on N;
# regression-points.sh O (382f5cc) against N, 2 rounds, the hardware protocol, and the 10 GiB point
# in the emulator protocol (the blocks' two added atomics must cost nothing); then issue 19's table
# on N in both protocols, one process a point (io-path-table.sh), with the new column.
set -u
T0=$SECONDS
cd build/carry && tar xJf s3.tar.xz && cd ../..
TESTS="nbb_gpu_test emulated_drives_test" BIN=build/carry/s3/N OUT=$OUT/tests-N \
  bash scripts/gpu/run-gpu-tests.sh > $OUT/tests-N.log 2>&1
echo "tests N rc=$? $((SECONDS-T0)) s" >> $OUT/tests-N.log
OLD=build/carry/s3/O NEW=build/carry/s3/N OUT=$OUT/N ROUNDS=2 \
  POINTS="table_optane10_1g table_ideal_512_4g f4_512_1024 f4_512_4096 table_qd1_null table_oneqp_null" \
  ARGS="--set storage.protocol=hardware" bash scripts/gpu/regression-points.sh > $OUT/N.log 2>&1
echo "points rc=$? $((SECONDS-T0)) s" >> $OUT/N.log
OLD=build/carry/s3/O NEW=build/carry/s3/N OUT=$OUT/Nemu ROUNDS=2 TABLE_PROTOCOL=emulator \
  POINTS="table_optane10_1g" bash scripts/gpu/regression-points.sh > $OUT/Nemu.log 2>&1
echo "points rc=$? $((SECONDS-T0)) s" >> $OUT/Nemu.log
/usr/bin/python3 scripts/gpu/regression-table.py $OUT/N > $OUT/N.md 2>&1
/usr/bin/python3 scripts/gpu/regression-table.py $OUT/Nemu >> $OUT/N.md 2>&1
for pr in hardware emulator; do
  BIN=build/carry/s3/N OUT=$OUT/table PROTOCOL=$pr bash scripts/gpu/io-path-table.sh > $OUT/table-$pr.log 2>&1
  echo "table $pr rc=$? $((SECONDS-T0)) s" >> $OUT/table-$pr.log
done
/usr/bin/python3 scripts/gpu/io-path-table.py $OUT/table --json $OUT/table.json > $OUT/table.md 2>&1
echo "all $((SECONDS-T0)) s" >> $OUT/N.md
cd $OUT && tar czf c3.tgz tests-N tests-N.log N Nemu N.log Nemu.log N.md table table-*.log table.md table.json && rm -rf tests-N N Nemu table
