#!/bin/bash
# Call 4 (as run): the 10 GiB points (default placement and even) with HEAD's build (the fair
# claim; call 3's binary, build/carry/f4.tar.xz) against e1ff784's (8e52572's engine, before the
# fair claim; build/carry/w1.tar.xz's head/), alternated: hardware protocol 3 rounds, then the
# emulator protocol 2 rounds. Each part tarred as it ends.
set -u
T0=$SECONDS
for t in w1 f4; do tar xJf build/carry/$t.tar.xz -C /tmp; done
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
for p in hardware:3 emulator:2; do
  OLD=/tmp/w1/head NEW=/tmp/f4 OUT=$OUT/c4/${p%:*} ROUNDS=${p#*:} TABLE_PROTOCOL=${p%:*} \
    POINTS="table_optane10_1g table_optane10_1g_even" bash scripts/gpu/regression-points.sh \
    > "$OUT/c4-${p%:*}.txt" 2>&1
  echo "== ${p%:*} at $((SECONDS - T0)) s"
  (cd "$OUT" && tar czf c4-${p%:*}.tgz c4/${p%:*} c4-${p%:*}.txt nvidia-smi.txt)
done
