# Call 5 (device tool, one H200), from the repository root: the review's fixes on top of e3cdf03
# (a mark past the caller's position covers nothing; an ordered queue set must take the mark) and
# the GPU test of the ordering read with covers over the host emulated controller
# (HostControllerGpu.*Ordered*). Every GPU test on the staged build, then compute-sanitizer
# (memcheck, racecheck, synccheck, initcheck) over host_controller_gpu_test's sanitizer cases,
# the ordered one included.
set -u
T0=$SECONDS
cd build/carry && tar xJf g.tar.xz && cd ../..
BIN=build/carry/G OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.log 2>&1
echo "tests rc=$? $((SECONDS-T0)) s" >> $OUT/tests.log
TOOLS="memcheck racecheck synccheck initcheck" NAMES=host_controller_gpu_test BIN=build/carry/G \
  OUT=$OUT/san bash scripts/gpu/sanitize.sh > $OUT/sanitize.log 2>&1
echo "sanitize rc=$? $((SECONDS-T0)) s" >> $OUT/sanitize.log
cd $OUT && tar czf c5.tgz tests san && rm -rf tests san
