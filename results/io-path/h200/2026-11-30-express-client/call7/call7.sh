# Call 7 (device tool, one H200), from the repository root: the committed tree (9e1537e's queue
# code with the tests written for the express steps), staged with every GPU test
# (scripts/gpu/run-gpu-tests.sh --stage): every GPU test, and the queue's small cases under
# compute-sanitizer memcheck and synccheck.
set -u
T0=$SECONDS
cd build/carry && tar xJf c7.tar.xz && cd ../..
B=build/carry/c7
BIN=$B/T OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.log 2>&1
echo "tests rc=$? $((SECONDS-T0)) s" >> $OUT/tests.log
BIN=$B/T OUT=$OUT/san TOOLS="memcheck synccheck" NAMES=queue_outstanding_gpu_test \
  bash scripts/gpu/sanitize.sh > $OUT/san.log 2>&1
echo "sanitize rc=$? $((SECONDS-T0)) s" >> $OUT/san.log
cd $OUT && tar czf c7.tgz tests tests.log san san.log && rm -rf tests san
