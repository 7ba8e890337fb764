#!/bin/bash
# Session 2026-11-29 (12:43-15:43), call D: what moved between a7a2066's Figure 4 / table and
# ece6c35's, alternated in one call, 2 rounds, one process a row. P = 93131e7 (a7a2066's engine,
# the session's start), N = ece6c35, O = N with gpu.engine_blocks=16 given (a7a2066's shape).
# 1) emulator protocol (no ordering queues: P's and N's serving are the same): QD1 null and
# optane, ideal 512 B over 1 GiB; 2) Figure 4's setup, 8 and 10 SSDs x 4 KiB reads at 1K and 4K
# threads (hardware protocol), where ece6c35's run read 0.936 / 0.964 of a7a2066's at 1K.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/n4.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
O=$OUT/d; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $O/nvidia-smi.csv 2>&1
for r in 1 2; do
  for v in P N; do
    BIN=$W/$v OUT=$O/emu_${v}_$r PROTOCOL=emulator POINTS="qd1_null qd1_optane ideal_512_1g" bash scripts/gpu/io-path-table.sh > $O/emu_${v}_$r.log 2>&1
    echo "== emu $v $r $((SECONDS-T0)) s"; grep -E "^== " $O/emu_${v}_$r.log | cut -c1-150
  done
done
for r in 1 2; do
  for v in P N O; do
    b=$v; extra=""; [ $v = O ] && { b=N; extra="--set gpu.engine_blocks=16"; }
    for n in 8 10; do
      f=$O/fig4_${v}_${n}_$r
      timeout 120 $W/$b/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
        --set storage.media.size_bytes=268435456 --set workload.ios=0 --set workload.duration_s=0.25 \
        --set storage.ssd_count=$n --set workload.io_size=4096 --set workload.op=read $extra \
        --sweep workload.threads=1024,4096 --repeat 3 --report $f.json > $f.txt 2>&1
      echo "== fig4 $v $n $r rc=$? $((SECONDS-T0)) s: $(grep -E 'IOPS' $f.txt | tr -s ' ' | cut -c1-60 | tr '\n' ';')"
    done
  done
done
tar -C $OUT -czf $OUT/d.tgz d && rm -rf $O
echo "== all $((SECONDS-T0)) s"
