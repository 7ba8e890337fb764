#!/bin/bash
# Call 6 (as run): does the queues' GPU memory change issue 19's 10 GiB point (854d73b)? The
# point as in the table, with 256-entry rings (queues.depth) and with 32 queue pairs a drive
# (queues.pairs_per_ssd), both protocols (call 5 passed --depth and --pairs, which the table's
# arguments already hold: refused); and copy-ceiling's beside mode with loads past the L2 at lower
# rates (the kernel beside sleeping 1-16 us between loads), nvidia-smi's memory utilization
# sampled every 100 ms throughout.
set -u
tar xJf build/carry/s3.tar.xz -C build/carry
B=build/carry/s3
O=$OUT/call6
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
point depth256-hw hardware "--set queues.depth=256"
point pairs32-hw hardware "--set queues.pairs_per_ssd=32"
point default-emu emulator ""
point depth256-emu emulator "--set queues.depth=256"
point default-hw-2 hardware ""
echo "== beside start $(date +%H:%M:%S.%N)" >> "$O/marks.txt"
"$B/copy-ceiling" beside 2 none poll:128:1000 poll:128:4000 poll:128:16000 none > "$O/beside.txt" 2>&1
rc=$?
echo "== beside end $(date +%H:%M:%S.%N) rc=$rc" >> "$O/marks.txt"
kill $mon
cat "$O/marks.txt" "$O/beside.txt"
tar czf "$OUT/call6.tgz" -C "$OUT" call6
