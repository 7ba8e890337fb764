#!/bin/bash
# Call 5 (as run): how busy the GPU's memory is (nvidia-smi utilization.memory, sampled every
# 100 ms) during issue 19's 10 GiB point (854d73b, hardware protocol: default, and with smaller
# queue rings or fewer queue pairs, whose memory the clients and the engine touch) and during
# copy-ceiling's beside mode (no traffic, L2-resident loads, loads past the L2).
set -u
tar xJf build/carry/s3.tar.xz -C build/carry
B=build/carry/s3
O=$OUT/call5
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
nvidia-smi --query-gpu=timestamp,utilization.gpu,utilization.memory --format=csv -lms 100 \
  > "$O/util.csv" 2>&1 &
mon=$!
point() {  # name protocol extra-args
  read -r -a a <<< "$(PROTOCOL=$2 bash scripts/gpu/io-path-table.sh --args optane10_1g) $3"
  echo "== $1 start $(date +%H:%M:%S.%N)" >> "$O/marks.txt"
  "$B/nvm-block-bench" "${a[@]}" --report "$O/$1.json" > "$O/$1.txt" 2>&1
  local rc=$?
  echo "== $1 end $(date +%H:%M:%S.%N) rc=$rc: $(grep -m1 'repeat:' "$O/$1.txt")" >> "$O/marks.txt"
}
point default-hw hardware ""
point depth256-hw hardware "--depth 256"  # refused: the table's arguments already have --depth
point pairs32-hw hardware "--pairs 32"
point default-emu emulator ""
point depth256-emu emulator "--depth 256"
echo "== beside start $(date +%H:%M:%S.%N)" >> "$O/marks.txt"
"$B/copy-ceiling" beside 2 none poll:16:64 poll:32:64 > "$O/beside.txt" 2>&1
rc=$?
echo "== beside end $(date +%H:%M:%S.%N) rc=$rc" >> "$O/marks.txt"
kill $mon
cat "$O/marks.txt" "$O/beside.txt"
tar czf "$OUT/call5.tgz" -C "$OUT" call5
