#!/bin/bash
# Session 2026-11-29 (12:43-15:43), call G. n5.tar.xz: X/ = c71255e (the engine writes where it
# started: each queue's warp, each block's SM; emulated_drives_test, nbb_gpu_test,
# nvm-block-bench), P/ = ece6c35's nvm-block-bench (the table's and Figure 4's build),
# qd1-placement = scripts/gpu/probes/qd1-placement.cu (nvcc -O3 -std=c++20 -arch=sm_90).
# 1) X's emulated_drives_test and nbb_gpu_test; 2) P and X alternated, 2 rounds, one process a
# point: QD1 null (both protocols), ideal 512 B over 1 GiB and the 10 GiB point (hardware);
# 3) qd1-placement, default block counts, controller in the first and the last block, twice.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/n5.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
O=$OUT/g; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $O/nvidia-smi.csv 2>&1
TESTS="emulated_drives_test nbb_gpu_test" BIN=$W/X OUT=$O/tests bash scripts/gpu/run-gpu-tests.sh > $O/tests.log 2>&1
echo "== tests rc=$? $((SECONDS-T0)) s"; grep -E "^== |FAILED|PASSED" $O/tests.log | head -20
for r in 1 2; do
  for v in P X; do
    BIN=$W/$v OUT=$O/alt_${v}_$r PROTOCOL=emulator POINTS="qd1_null" bash scripts/gpu/io-path-table.sh > $O/alt_${v}_$r.log 2>&1
    BIN=$W/$v OUT=$O/alt_${v}_$r PROTOCOL=hardware POINTS="qd1_null ideal_512_1g optane10_1g" bash scripts/gpu/io-path-table.sh >> $O/alt_${v}_$r.log 2>&1
    echo "== alt $v $r $((SECONDS-T0)) s"; grep -E "^== " $O/alt_${v}_$r.log | cut -c1-150
  done
done
for r in 1 2; do
  $W/qd1-placement 20000 5 > $O/placement_$r.txt 2>&1
  echo "== placement $r rc=$? $((SECONDS-T0)) s"; cut -c1-110 $O/placement_$r.txt
done
tar -C $OUT -czf $OUT/g.tgz g && rm -rf $O
echo "== all $((SECONDS-T0)) s"
