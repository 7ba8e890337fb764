#!/bin/bash
# Call 6 (as run): call 5's best shape again, alternated with the point's 64 x 4 and beside 96 x 4
# (blocks x warps on the first SMs), HEAD's build (build/carry/f4.tar.xz): hardware protocol
# 2 rounds, then the emulator protocol (96 x 4 in round 1 only). Tarred after each protocol.
set -u
T0=$SECONDS
tar xJf build/carry/f4.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
O=$OUT/c6
mkdir -p "$O"
EVEN=$(bash scripts/gpu/io-path-table.sh --args optane10_1g_even)
run() {  # protocol shape round
  local n=$O/$1-$2-$3
  timeout 60 /tmp/f4/nvm-block-bench $EVEN --set storage.protocol=$1 --set gpu.engine_blocks=${2%x*} \
    --set gpu.engine_warps_per_block=${2#*x} --report "$n.json" > "$n.txt" 2>&1
  echo "== $1 $2 $3 rc=$? at $((SECONDS - T0)) s"
}
run hardware 80x4 1; run hardware 64x4 1; run hardware 96x4 1
run hardware 96x4 2; run hardware 64x4 2; run hardware 80x4 2
(cd "$OUT" && tar czf c6-hw.tgz c6 nvidia-smi.txt)
run emulator 64x4 1; run emulator 80x4 1; run emulator 96x4 1
run emulator 80x4 2; run emulator 64x4 2
(cd "$OUT" && tar czf c6.tgz c6 nvidia-smi.txt)
