# Call 7 (device tool, one H200), from the repository root: compute-sanitizer (memcheck,
# racecheck, synccheck) over host_controller_gpu_test's small cases on V (6b62f71's code): GPU
# threads on queues a host controller serves, with and without the ordering read, whose lock
# holder now waits through submit_and_wait_alone.
set -u
T0=$SECONDS
cd build/carry && tar xJf v.tar.xz && cd ../..
mkdir -p $OUT/san
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  timeout 150 $CS --tool $tool --error-exitcode 9 build/carry/V/host_controller_gpu_test \
    --gtest_filter='HostControllerGpu.SanitizerCase*' > $OUT/san/$tool.log 2>&1
  echo "sanitizer $tool rc=$? $((SECONDS-T0)) s" >> $OUT/san/rc.txt
done
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c7.tgz san time.txt && cp san/rc.txt rc.txt && rm -rf san
