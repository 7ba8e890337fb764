#!/bin/bash
# Call 4 (as run): b2af7b0's tools (build/carry/g5.tar.xz; gpu.engine_placement auto's line at 2
# GiB of pinned media): nvm-block-bench's GPU test binary; the table's 10 x 256 MiB point (2.5 GiB,
# now the even engine) against the scheduler's placement given explicitly, alternated, 2 rounds, in
# both protocols; then Figure 4 (scripts/sweep configs/sweeps/nbb-fig4.json: 1-10 SSDs x 256 MiB,
# 3 processes each, and the ceilings), whose 8- and 10-SSD points (2 and 2.5 GiB) now run the even
# engine. Raw files in /tmp/raw, tarred.
set -u
T0=$SECONDS
tar xJf build/carry/g5.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER NBB_BIN=/tmp/g5/nvm-block-bench
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
/tmp/g5/nbb_gpu_test > "$R/nbb_gpu_test.log" 2>&1
echo "== nbb_gpu_test rc=$? at $((SECONDS - T0)) s"
for p in hardware emulator; do
  OLD=/tmp/g5 NEW=/tmp/g5 OUT=$R/ab256-$p ROUNDS=2 OLD_ARGS="--set gpu.engine_placement=scheduler" \
    TABLE_PROTOCOL=$p POINTS="table_optane10_256m" \
    bash scripts/gpu/regression-points.sh > "$R/ab256-$p.txt" 2>&1
  echo "== ab256 $p at $((SECONDS - T0)) s"
done
(cd $R && tar czf "$OUT/ab256.tgz" ab256-* nvidia-smi.txt nbb_gpu_test.log)
timeout 520 /usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin /tmp/g5 \
  --out $R/fig4 --gpu h200 --session 2026-12-01-b2af7b0-x3 --stop-after 440 \
  > "$R/sweep.log" 2>&1
echo "== sweep rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/fig4.tgz" fig4 sweep.log)
