# Call 6 (device tool, one H200), from the repository root: emulated_drives_test with the
# express post's counts and a single Write Zeroes checked, then Figure 4's 10-SSD point (3
# processes each) for A (0937a7c) and the code as committed after 3ea96ee (its engine's PTX
# byte-identical to 3ea96ee's and N's), alternated: call 5's one process read all four of that
# point's 1K / 4K-thread reads lower.
set -u
cd build/carry && tar xJf bin.tar.xz && tar xJf a.tar.xz && cd ../..
TESTS=emulated_drives_test BIN=build/carry/bin OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.log 2>&1
echo "gpu tests rc=$?"
grep -E "^==|FAILED|PASSED" $OUT/tests.log
for v in A bin; do
  /usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin build/carry/$v --out $OUT/fig4-$v \
    --gpu h200 --session express-call6 --points 4 > $OUT/fig4-$v.log 2>&1
done
cd $OUT && tar czf c6.tgz tests tests.log fig4-A fig4-bin fig4-*.log && rm -rf tests tests.log fig4-A fig4-bin fig4-*.log
