#!/bin/bash
# Session 2026-11-29 (12:43-15:43), call H: emulated_drives_test and nbb_gpu_test at the fence
# between the engine's placement writes and its start count (X/ of n6.tar.xz).
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/n6.tar.xz
export CUDA_MODULE_LOADING=EAGER
O=$OUT/h; mkdir -p $O
TESTS="emulated_drives_test nbb_gpu_test" BIN=$W/X OUT=$O/tests bash scripts/gpu/run-gpu-tests.sh > $O/tests.log 2>&1
echo "== tests rc=$?"; grep -E "^== |FAILED|PASSED" $O/tests.log | head -20
grep -h "engine_sms\|drive(s):" $O/tests/*.log | head -8
tar -C $OUT -czf $OUT/h.tgz h && rm -rf $O
