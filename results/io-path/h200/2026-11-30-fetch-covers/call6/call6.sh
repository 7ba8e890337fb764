# Call 6 (device tool, one H200), from the repository root: c334cb4 staged (B: one protocol text
# for the reports, real_hardware_notes' protocol_note). Every GPU test; then issue 19's table in
# both protocols (scripts/gpu/io-path-table.sh, every point, one process a point) and the
# reports' real_hardware line of its QD1 points.
set -u
T0=$SECONDS
cd build/carry && tar xJf b.tar.xz && cd ../..
BIN=build/carry/B OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.log 2>&1
echo "tests rc=$? $((SECONDS-T0)) s" >> $OUT/tests.log
for proto in hardware emulator; do
  BIN=build/carry/B OUT=$OUT/table PROTOCOL=$proto bash scripts/gpu/io-path-table.sh \
    > $OUT/table-$proto.log 2>&1
done
/usr/bin/python3 scripts/gpu/io-path-table.py $OUT/table > $OUT/table.md 2>&1 || python3 scripts/gpu/io-path-table.py $OUT/table > $OUT/table.md 2>&1
for proto in hardware emulator; do
  python3 -c "import json,sys; print(sys.argv[2], json.load(open(sys.argv[1]))['jobs'][0]['bamkit']['stats']['real_hardware'])" \
    $OUT/table/$proto/qd1_null.json $proto >> $OUT/real_hardware.txt 2>&1
done
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c6.tgz tests tests.log table table-*.log table.md real_hardware.txt time.txt && rm -rf tests table table-*.log
