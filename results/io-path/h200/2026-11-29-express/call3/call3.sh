# Call 3 (device tool, one H200), from the repository root: the kept build N (0937a7c + the
# engine's express post: e1.patch and e1-e3.patch's skip of move_data, as committed) against
# A = 0937a7c. Every GPU test on N; then issue 19's whole table, both protocols, A and N in turn.
set -u
cd build/carry && tar xJf all.tar.xz && cd ../..
BIN=build/carry/bin OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.log 2>&1
echo "gpu tests rc=$?"
grep "^==" $OUT/tests.log
(cd $OUT && tar czf tests.tgz tests tests.log && rm -rf tests tests.log)
for p in hardware emulator; do
  for v in A N; do
    BIN=build/carry/$v OUT=$OUT/t/$v PROTOCOL=$p bash scripts/gpu/io-path-table.sh > $OUT/t-$v-$p.log 2>&1
  done
done
(cd $OUT && tar czf table.tgz t t-*.log && rm -rf t t-*.log)
