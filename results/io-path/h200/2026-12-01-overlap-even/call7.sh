#!/bin/bash
# Call 7 (as run): issue 19's 10 GiB point (854d73b) by queue depth (queues.depth 1024 / 512 /
# 256 / 128) in both protocols, and by queue pairs at the same queue memory (64 x 512, 256 x 256,
# emulator protocol), one process of 3 runs each; then 256-entry rings against the default at
# other points (scripts/gpu/regression-points.sh, one binary, NEW_ARGS, 1 round).
set -u
tar xJf build/carry/s3.tar.xz -C build/carry
B=build/carry/s3
O=$OUT/call7
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
point() {  # name protocol extra-args
  read -r -a a <<< "$(PROTOCOL=$2 bash scripts/gpu/io-path-table.sh --args optane10_1g) $3"
  "$B/nvm-block-bench" "${a[@]}" --report "$O/$1.json" > "$O/$1.txt" 2>&1
  local rc=$?
  echo "== $1 rc=$rc: $(grep -m1 'repeat:' "$O/$1.txt")" | tee -a "$O/marks.txt"
}
for p in emulator hardware; do
  for d in 1024 512 256 128; do point "$p-d$d" $p "--set queues.depth=$d"; done
done
point emulator-p64-d512 emulator "--set queues.pairs_per_ssd=64 --set queues.depth=512"
point emulator-p256-d256 emulator "--set queues.pairs_per_ssd=256 --set queues.depth=256"
point emulator-d1024-again emulator ""
mkdir -p "$O/other"
OLD=$B NEW=$B ROUNDS=1 OUT=$O/other TABLE_PROTOCOL=hardware NEW_ARGS="--set queues.depth=256" \
  POINTS="table_ideal_512_1g table_ideal_512_4g table_oneqp_null table_qd1_null f4_512_1024 f4_512_4096 f4_4k_1024" \
  scripts/gpu/regression-points.sh > "$O/other.txt" 2>&1
grep '^==' "$O/other.txt"
tar czf "$OUT/call7.tgz" -C "$OUT" call7
