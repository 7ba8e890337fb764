#!/bin/bash
# Session 2026-11-29 (10:17-13:17), call E: is the tail a7a2066 added at Figure 4's capped points
# the uneven spread of the application's queues over the warps left after the ordering warps?
# nextE.tar.xz: base/ (a66a141's code, stamped 9eac9f8-dirty), W/ (a7a2066). Figure 4's setup
# (hardware protocol, 256 MiB per SSD, 0.25 s, median of 3, 1M threads), one process per row:
# engine shapes where the application's queues divide evenly over the warps left (2 SSDs: 17 x 16,
# 270 warps for 256 queues; 4 SSDs: 20 x 13, 256 warps for 512; 10 SSDs: 17 x 10, 160 for 1280,
# and 22 x 15, 320 for 1280).
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/nextE.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
O=$OUT/e; mkdir -p $O
f4() { # name build ssds op sizes [shape args]
  local name=$1 b=$2 n=$3 op=$4 sizes=$5; shift 5
  [ $((SECONDS-T0)) -gt 250 ] && { echo "== $name skipped"; return; }
  timeout 60 $W/$b/nvm-block-bench --config configs/block/optane-x4-512b-randread.json --set storage.media.size_bytes=268435456 --set workload.ios=0 --set workload.duration_s=0.25 --set storage.ssd_count=$n --set workload.op=$op --sweep workload.io_size=$sizes --set workload.threads=1048576 --repeat 3 "$@" --report $O/$name.json --csv $O/$name.csv > $O/$name.txt 2>&1
  echo "== $name rc=$? $((SECONDS-T0)) s"; cut -d, -f9,10,14,16,17,18 $O/$name.csv | tail -n +2
}
f4 s2_base base 2 write 512,4096
f4 s2_W W 2 write 512,4096
f4 s2_W17x16 W 2 write 512,4096 --set gpu.engine_blocks=17 --set gpu.engine_warps_per_block=16
f4 s2_base17x16 base 2 write 512,4096 --set gpu.engine_blocks=17 --set gpu.engine_warps_per_block=16
f4 s4_base base 4 write 512
f4 s4_W W 4 write 512
f4 s4_W20x13 W 4 write 512 --set gpu.engine_blocks=20 --set gpu.engine_warps_per_block=13
f4 s10_base base 10 read 512,4096
f4 s10_W W 10 read 512,4096
f4 s10_W17x10 W 10 read 512,4096 --set gpu.engine_blocks=17 --set gpu.engine_warps_per_block=10
f4 s10_W22x15 W 10 read 512,4096 --set gpu.engine_blocks=22 --set gpu.engine_warps_per_block=15
tar -C $OUT -czf $OUT/e.tgz e && rm -rf $O
echo "== all $((SECONDS-T0)) s"
