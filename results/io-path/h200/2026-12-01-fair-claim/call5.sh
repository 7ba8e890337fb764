#!/bin/bash
# Call 5 (as run): the even 10 GiB point's engine shape on the first SMs with HEAD's build (the
# fair claim; build/carry/f4.tar.xz): 64 x 4 (the point as io-path-table.sh runs it), 72 x 4,
# 80 x 4, 64 x 5, 64 x 6 (blocks x warps), hardware protocol 2 rounds, then the emulator
# protocol 1 round, each process a median of 3 runs with its ceiling.
set -u
T0=$SECONDS
tar xJf build/carry/f4.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
O=$OUT/c5
mkdir -p "$O"
EVEN=$(bash scripts/gpu/io-path-table.sh --args optane10_1g_even)
for pr in hardware:1 hardware:2 emulator:1; do
  p=${pr%:*} r=${pr#*:}
  for s in 64x4 72x4 80x4 64x5 64x6; do
    n=$O/$p-$s-$r
    timeout 120 /tmp/f4/nvm-block-bench $EVEN --set storage.protocol=$p --set gpu.engine_blocks=${s%x*} \
      --set gpu.engine_warps_per_block=${s#*x} --report "$n.json" > "$n.txt" 2>&1
    echo "== $p $s $r rc=$? at $((SECONDS - T0)) s"
  done
done
(cd "$OUT" && tar czf c5.tgz c5 nvidia-smi.txt)
