# Call 3 (device tool, one H200), from the repository root: K, the kept build (V2 of call 2 as
# committed: its queue code is V2's), against H (the build before). Every GPU test on K and the
# queue tests under compute-sanitizer; then issue 19's whole table, both protocols, H and K in
# turn.
set -u
cd build/carry && tar xJf bin.tar.xz && mv bin H && tar xJf k.tar.xz && cd ../..
BIN=build/carry/K OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.log 2>&1
echo "gpu tests rc=$?"
grep "^==" $OUT/tests.log
TOOLS="memcheck racecheck" NAMES="host_controller_gpu_test queue_outstanding_gpu_test" \
  BIN=build/carry/K OUT=$OUT/sanitize timeout 200 bash scripts/gpu/sanitize.sh > $OUT/sanitize.log 2>&1
echo "sanitize rc=$?"
tail -4 $OUT/sanitize.log
for p in hardware emulator; do
  for v in H K; do
    BIN=build/carry/$v OUT=$OUT/t/$v PROTOCOL=$p bash scripts/gpu/io-path-table.sh > $OUT/t-$v-$p.log 2>&1
  done
done
cd $OUT && tar czf c3.tgz tests tests.log sanitize sanitize.log t t-*.log && rm -rf tests tests.log sanitize sanitize.log t t-*.log
