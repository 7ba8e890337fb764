# Call 1 (device tool, one H200), from the repository root: does the engine's turn gain from
# overlapping its steps with the copies in flight? O = 382f5cc's nvm-block-bench and cache-bench;
# B1 = O's engine with each batch's first pass of copies issued before its pipe is booked
# (book_time while they fly); B2 = B1 restructured so that a batch's last pass flies while the
# next turn claims, fetches and books (its completions parked with in_flight_bit until it
# landed). Every GPU test on B1 and on B2, then regression-points.sh O against B1 and O against
# B2, 2 rounds each, the hardware protocol.
set -u
T0=$SECONDS
cd build/carry && tar xJf s1.tar.xz && cd ../..
for v in B1 B2; do
  BIN=build/carry/s1/$v OUT=$OUT/tests-$v bash scripts/gpu/run-gpu-tests.sh > $OUT/tests-$v.log 2>&1
  echo "tests $v rc=$? $((SECONDS-T0)) s" >> $OUT/tests-$v.log
done
P="table_optane10_1g table_ideal_512_4g f4_512_1024 f4_512_4096 f4_4k_1024 table_qd1_null table_qd1_optane table_oneqp_null"
for v in B1 B2; do
  OLD=build/carry/s1/O NEW=build/carry/s1/$v OUT=$OUT/$v ROUNDS=2 POINTS="$P" \
    ARGS="--set storage.protocol=hardware" bash scripts/gpu/regression-points.sh > $OUT/$v.log 2>&1
  echo "points rc=$? $((SECONDS-T0)) s" >> $OUT/$v.log
  /usr/bin/python3 scripts/gpu/regression-table.py $OUT/$v > $OUT/$v.md 2>&1
done
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $OUT/nvidia-smi.csv 2>&1
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c1.tgz tests-B1 tests-B2 tests-B1.log tests-B2.log B1 B2 B1.log B2.log B1.md B2.md nvidia-smi.csv time.txt && rm -rf tests-B1 tests-B2 B1 B2
