#!/bin/bash
# Session 2026-11-29 (10:17-13:17), call C. nextC.tar.xz: W/ = nvm-block-bench at a7a2066 (the
# drives' ordering queues on engine warps of their own), C/ = W with the waiter's sleep capped by its
# queue's commands (qd1-backoff.patch, a7a2066-dirty). 1) W and C alternated, 2 rounds: ideal
# 512 B over 4 GiB in both protocols and 4 x optane (hardware) (call B's table of C read 3-5 % under
# the default's there); 2) Figure 4 at W, 3 processes per SSD count (configs/sweeps/nbb-fig4.json).
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/nextC.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
O=$OUT/c; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $O/nvidia-smi.csv 2>&1
for r in 1 2; do
  for b in W C; do
    for proto in emulator hardware; do
      P="ideal_512_4g"; [ $proto = hardware ] && P="ideal_512_4g optane4_512"
      BIN=$W/$b OUT=$O/alt_${b}_$r PROTOCOL=$proto POINTS="$P" bash scripts/gpu/io-path-table.sh >> $O/alt_${b}_$r.log 2>&1
    done
    echo "== alt $b $r $((SECONDS-T0)) s"; grep -E "^== " $O/alt_${b}_$r.log | cut -c1-150
  done
done
tar -C $OUT -czf $OUT/c.tgz c && rm -rf $O
/usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin $W/W --out $OUT/fig4 \
  --gpu h200 --session $(date -u +%F)-a7a2066-x3 --stop-after $((570 - SECONDS + T0)) 2>&1 | tail -20
echo "== sweep $((SECONDS-T0)) s"
tar -C $OUT -czf $OUT/fig4.tgz fig4 && rm -rf $OUT/fig4
echo "== all $((SECONDS-T0)) s"
