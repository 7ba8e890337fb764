# Call 1 (device tool, one H200), from the repository root: V = the ordering read's waiter with a
# sleep ceiling of one command (queue_pair_ref::submit_and_wait_alone) and the reports'
# gpu_driver, staged with every GPU test; O = its parent's (7169e30) nvm-block-bench and
# cache-bench. Every GPU test on V; then regression-points.sh, O against V, 4 rounds, every point
# in the hardware protocol (the ordering read runs only there); then regression-table.py.
set -u
T0=$SECONDS
cd build/carry && tar xJf v.tar.xz && cd ../..
BIN=build/carry/V OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.log 2>&1
echo "tests rc=$? $((SECONDS-T0)) s" >> $OUT/tests.log
OLD=build/carry/O NEW=build/carry/V OUT=$OUT/ab ROUNDS=4 ARGS="--set storage.protocol=hardware" \
  POINTS="table_qd1_null table_qd1_optane table_oneqp_null f4_512_1024 f4_512_4096 f4_4k_1024 cb_miss_optane table_optane10_1g" \
  bash scripts/gpu/regression-points.sh > $OUT/ab.log 2>&1
echo "points rc=$? $((SECONDS-T0)) s" >> $OUT/ab.log
/usr/bin/python3 scripts/gpu/regression-table.py $OUT/ab > $OUT/table.md 2>&1
python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['bamkit']['machine']; print(m.get('gpu_driver'), m['driver'], m['git_commit'])" \
  $OUT/ab/table_qd1_null_new_1.json > $OUT/machine.txt 2>&1
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c1.tgz tests tests.log ab ab.log table.md machine.txt time.txt && rm -rf tests ab
