#!/bin/bash
# Call 7 (as run): Figure 4 (scripts/sweep configs/sweeps/nbb-fig4.json: 1-10 SSDs, 3 processes
# each) with 8e52572's nvm-block-bench (the engine's streaming accesses), the binary of call 6.
set -u
T0=$SECONDS
B=/tmp/v2
mkdir -p "$B" "$OUT/t"
tar xJf build/carry/v2.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$OUT/t/nvidia-smi.txt" 2>&1
timeout 380 /usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin "$B" \
  --out "$OUT/fig4" --gpu h200 --session 2026-12-01-8e52572-x3 --stop-after 330 \
  > "$OUT/t/sweep.log" 2>&1
echo "sweep rc=$? $((SECONDS - T0)) s"
cd "$OUT" && tar czf fig4.tgz fig4 && tar czf t.tgz t && rm -rf fig4 t
echo "all $((SECONDS - T0)) s"
