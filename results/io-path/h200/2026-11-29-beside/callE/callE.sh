#!/bin/bash
# Session 2026-11-29 (12:43-15:43), call E: QD1 `null` by engine shape (ece6c35, C/ of n3.tar.xz),
# both protocols, 2 rounds, one process a shape (3 runs of 20,000 commands). Call B found the
# hardware protocol's QD1 3 us slower with the drive's ordering warp in block 1 of 17 than in block
# 15 of 16: does QD1 move with the engine's size (the idle warps polling), or with where the
# ordering warp is? Warp w is in block w % blocks: the ordering warp of a given shape is its last
# warp (block blocks - 1), the application's queue is warp 0's (block 0).
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/n3.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
O=$OUT/e; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $O/nvidia-smi.csv 2>&1
for r in 1 2; do
  for shape in 16x16 17x16 18x16 32x16 64x16 16x1 16x4 4x16 2x16 1x16; do
    b=${shape%x*}; w=${shape#*x}
    for proto in emulator hardware; do
      BIN=$W/C OUT=$O/${shape}_$r PROTOCOL=$proto POINTS="qd1_null" \
        EXTRA="--set gpu.engine_blocks=$b --set gpu.engine_warps_per_block=$w" \
        bash scripts/gpu/io-path-table.sh >> $O/${shape}_$r.log 2>&1
    done
    echo "== $shape $r $((SECONDS-T0)) s: $(grep -E '^== ' $O/${shape}_$r.log | sed 's/.*total: //' | cut -c1-40 | tr '\n' ';')"
  done
done
tar -C $OUT -czf $OUT/e.tgz e && rm -rf $O
echo "== all $((SECONDS-T0)) s"
