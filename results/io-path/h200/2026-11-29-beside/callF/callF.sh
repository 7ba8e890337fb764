#!/bin/bash
# Session 2026-11-29 (12:43-15:43), call F: QD1 `null` by engine block count (ece6c35, C/ of
# n3.tar.xz), both protocols, one round, one process a shape (3 runs of 20,000 commands). Call E
# found 17 and 18 blocks of 16 warps 1.1 us (emulator) and 3.5 us (hardware) slower than 1, 2, 4,
# 16, 32 and 64: which counts, and is it the blocks or the warps (17 x 8, 34 x 8)?
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/n3.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
O=$OUT/f; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $O/nvidia-smi.csv 2>&1
for r in 1; do
  for shape in 16x16 8x16 12x16 15x16 17x16 20x16 24x16 25x16 33x16 40x16 48x16 17x8 34x8; do
    b=${shape%x*}; w=${shape#*x}
    for proto in emulator hardware; do
      BIN=$W/C OUT=$O/${shape}_$r PROTOCOL=$proto POINTS="qd1_null" \
        EXTRA="--set gpu.engine_blocks=$b --set gpu.engine_warps_per_block=$w" \
        bash scripts/gpu/io-path-table.sh >> $O/${shape}_$r.log 2>&1
    done
    echo "== $shape $r $((SECONDS-T0)) s: $(grep -E '^== ' $O/${shape}_$r.log | sed 's/.*total: //' | cut -c1-40 | tr '\n' ';')"
  done
done
tar -C $OUT -czf $OUT/f.tgz f && rm -rf $O
echo "== all $((SECONDS-T0)) s"
