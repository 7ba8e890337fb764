#!/bin/bash
# Session 2026-11-29 (12:43-15:43), call C: ece6c35 (C/ of n3.tar.xz: the ordering warps beside the
# application's where its queues outnumber the warps they would leave). 1) emulated_drives_test and
# nbb_gpu_test; 2) issue 19's table, hardware protocol (the emulator protocol's engine is call A's);
# 3) Figure 4, 3 processes per SSD count (configs/sweeps/nbb-fig4.json).
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/n3.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
O=$OUT/c; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $O/nvidia-smi.csv 2>&1
TESTS="emulated_drives_test nbb_gpu_test" BIN=$W/C OUT=$O/tests bash scripts/gpu/run-gpu-tests.sh > $O/tests.log 2>&1
echo "== tests rc=$? $((SECONDS-T0)) s"; grep -E "^== |FAILED" $O/tests.log | head -30
BIN=$W/C OUT=$O/table PROTOCOL=hardware bash scripts/gpu/io-path-table.sh > $O/table_hardware.log 2>&1
echo "== table hardware $((SECONDS-T0)) s"; grep -E "^== " $O/table_hardware.log | cut -c1-150
tar -C $OUT -czf $OUT/c.tgz c && rm -rf $O
/usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin $W/C --out $OUT/fig4 \
  --gpu h200 --session $(date -u +%F)-ece6c35-x3 --stop-after $((570 - SECONDS + T0)) 2>&1 | tail -20
echo "== sweep $((SECONDS-T0)) s"
tar -C $OUT -czf $OUT/fig4.tgz fig4 && rm -rf $OUT/fig4
echo "== all $((SECONDS-T0)) s"
