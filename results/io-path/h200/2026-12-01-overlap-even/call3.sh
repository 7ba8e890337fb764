#!/bin/bash
# Call 3 (as run): copy-ceiling's beside mode (scripts/gpu/probes/copy-ceiling.cu, built on the dev
# machine with the command in its header): the engine's copy scheme on 16 SMs, alone and beside
# client-like traffic on the other 116, over 10 x 1 GiB and 1 GiB; then the plain async8x1 lines
# over 10 x 1 GiB for reference.
set -u
tar xJf build/carry/s3.tar.xz -C build/carry
B=build/carry/s3
O=$OUT/call3
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
"$B/copy-ceiling" beside 3 > "$O/beside.txt" 2>&1
echo "== beside rc=$?"
"$B/copy-ceiling" 512 3 async8x1 10x1GiB > "$O/async8x1.txt" 2>&1
echo "== async8x1 rc=$?"
cat "$O/beside.txt" "$O/async8x1.txt"
tar czf "$OUT/call3.tgz" -C "$OUT" call3
