#!/bin/bash
# Call 3 (as run): Figure 4 (scripts/sweep configs/sweeps/nbb-fig4.json: 1-10 SSDs, 3 processes
# each, and the ceilings) with HEAD's nvm-block-bench (e0b3dcf's tools, the fair claim), the
# binary of call 2.
set -u
T0=$SECONDS
B=/tmp/f4
mkdir -p "$OUT/t"
tar xJf build/carry/f4.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$OUT/t/nvidia-smi.txt" 2>&1
timeout 560 /usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin "$B" \
  --out "$OUT/fig4" --gpu h200 --session 2026-12-01-e0b3dcf-x3 --stop-after 480 \
  > "$OUT/t/sweep.log" 2>&1
echo "sweep rc=$? $((SECONDS - T0)) s"
cd "$OUT" && tar czf fig4.tgz fig4 && tar czf t.tgz t && rm -rf fig4 t
echo "all $((SECONDS - T0)) s"
