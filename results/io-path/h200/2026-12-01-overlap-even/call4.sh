#!/bin/bash
# Call 4 (as run): copy-ceiling's beside mode by the traffic's footprint, rate and kind: which
# traffic on the other SMs slows the engine's copy scheme on 16 SMs (call 3: loads over 128 MiB
# did, atomics over 160 KiB did not).
set -u
tar xJf build/carry/s3.tar.xz -C build/carry
B=build/carry/s3
O=$OUT/call4
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
"$B/copy-ceiling" beside 2 none poll:128:64 poll:32:64 poll:16:64 poll:4:64 poll:1:64 \
  poll:128:1000 poll:16:1000 store:16:64 store:128:64 poll-sys:16:64 none > "$O/beside.txt" 2>&1
echo "== beside rc=$?"
cat "$O/beside.txt"
tar czf "$OUT/call4.tgz" -C "$OUT" call4
