# Call 6 (device tool, one H200), from the repository root: every GPU test at 742bb71 (staged on
# the dev machine with scripts/gpu/run-gpu-tests.sh --stage), after the reports' shared
# real_hardware text (nbb_gpu_test asserts it) and cache-bench's engine keys.
set -u
mkdir -p /tmp/s && tar xJf build/carry/bin.tar.xz -C /tmp/s
BIN=/tmp/s/bin OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.txt 2>&1
cd $OUT && tar czf c6.tgz tests tests.txt
