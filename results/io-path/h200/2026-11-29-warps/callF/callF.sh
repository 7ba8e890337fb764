#!/bin/bash
# Session 2026-11-29 (10:17-13:17), call F: the ordering warps launched beside the application's
# (a block more: 17 x 16, the application's queues on the first 256 warps as without ordering
# queues; ordering-beside.patch on 0e8bb89 = a7a2066's code), B/, against a7a2066, W/. 1) B's
# emulated_drives_test and nbb_gpu_test; 2) Figure 4's setup (hardware protocol, 256 MiB per SSD,
# 0.25 s, median of 3), one process a row: 2 SSDs writes, 4 SSDs 512 B writes, 10 SSDs reads at 1K
# and 1M threads; 3) the 10 GiB point (hardware), W and B alternated, 2 rounds.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/nextF.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
O=$OUT/f; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $O/nvidia-smi.csv 2>&1
TESTS="emulated_drives_test nbb_gpu_test" BIN=$W/B OUT=$O/tests bash scripts/gpu/run-gpu-tests.sh > $O/tests.log 2>&1
echo "== tests rc=$? $((SECONDS-T0)) s"; grep -E "^== |FAILED" $O/tests.log | head
f4() { # name build ssds op sizes threads
  [ $((SECONDS-T0)) -gt 190 ] && { echo "== $1 skipped"; return; }
  timeout 60 $W/$2/nvm-block-bench --config configs/block/optane-x4-512b-randread.json --set storage.media.size_bytes=268435456 --set workload.ios=0 --set workload.duration_s=0.25 --set storage.ssd_count=$3 --set workload.op=$4 --sweep workload.io_size=$5 --sweep workload.threads=$6 --repeat 3 --report $O/$1.json --csv $O/$1.csv > $O/$1.txt 2>&1
  echo "== $1 rc=$? $((SECONDS-T0)) s"; cut -d, -f7,9,10,14,16,17,18 $O/$1.csv | tail -n +2
}
for b in W B; do
  f4 s2_$b $b 2 write 512,4096 1048576
  f4 s4_$b $b 4 write 512 1048576
  f4 s10_$b $b 10 read 512,4096 1024,1048576
done
GiB=1073741824
for r in 1 2; do for b in W B; do
  [ $((SECONDS-T0)) -gt 215 ] && { echo "== t10 $b $r skipped"; continue; }
  timeout 60 $W/$b/nvm-block-bench --backend emulated --pairs 128 --depth 1024 --threads 1048576 --outstanding 1 --repeat 3 --ssds 10 --model optane-p5800x --io-size 512 --set storage.media.size_bytes=$GiB --ios 67108864 --measure-ceilings --set storage.protocol=hardware --report $O/t10_${b}_$r.json > $O/t10_${b}_$r.txt 2>&1
  echo "== t10 $b $r rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $O/t10_${b}_$r.txt | head -1 | cut -c1-170)"
done; done
tar -C $OUT -czf $OUT/f.tgz f && rm -rf $O
echo "== all $((SECONDS-T0)) s"
