#!/bin/bash
# Session of 2026-11-29 (06:35-), call 6: Figure 4 at aa4383f (call 5) read 8 SSDs x 4 KiB at
# 64K-1M threads 3 % under 437af2f's run (11.21-11.26 against 11.51-11.59 M, every process, no
# queue given away) and 8-10 SSDs x 512 B about 1 % under: the engine shape (32 x 8 since 3363480)
# or the call? aa4383f's binary with 16 x 16 against 32 x 8, alternated, 2 rounds; Figure 4's setup.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stageF.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
F=(--config configs/block/optane-x4-512b-randread.json --set storage.media.size_bytes=268435456 --set workload.ios=0 --set workload.duration_s=0.25 --sweep workload.io_size=512,4096 --sweep workload.threads=65536,1048576 --repeat 3)
for r in 1 2; do
  for s in 8 10; do
    for sh in 16x16 32x8; do
      n=s${s}_${sh}_$r
      timeout 60 $W/stageF/nvm-block-bench "${F[@]}" --set storage.ssd_count=$s --set gpu.engine_blocks=${sh%x*} --set gpu.engine_warps_per_block=${sh#*x} --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
      echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/t/$n.txt | awk '{print $8}' | tr '\n' ' ')"
    done
  done
done
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
