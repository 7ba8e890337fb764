#!/bin/bash
# Call 2 (as run): call 1 found that neither the rings' layout nor the commands in flight set the
# 10 GiB point's rate, only each ring's size. Is it the memory the rings cycle through (queues x
# entries), or something per queue that grows with its size? Depth 1024 on 32 pairs a drive (the
# cycled memory of 128 x 128) with as many threads as 128 a queue and with 1M; depth 128 on 512
# and 768 pairs (more cycled memory than 128 x 1024). The untimed `ideal` model at both depths
# (the engine fetches at once: no SQ backlog). Then the engine's copies with an L2 evict-first
# policy (scripts/gpu/probes/engine-l2-evict-first-stores.patch, E2) against b17646b at depth
# 1024, alternating, 3 rounds.
set -u
tar xJf build/carry/t2.tar.xz -C build/carry
B=build/carry/t2
O=$OUT/call2
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
point() {  # name protocol extra-args [binary]
  read -r -a a <<< "$(PROTOCOL=$2 bash scripts/gpu/io-path-table.sh --args optane10_1g) $3"
  "$B/${4:-nvm-block-bench}" "${a[@]}" --report "$O/$1.json" > "$O/$1.txt" 2>&1
  local rc=$?
  echo "== $1 rc=$rc: $(grep -m1 'repeat:' "$O/$1.txt")" | tee -a "$O/marks.txt"
}
h=hardware
point hw-d1024 $h ""
point hw-d1024-p32-t40960 $h "--set queues.pairs_per_ssd=32 --set workload.threads=40960"
point hw-d1024-p32 $h "--set queues.pairs_per_ssd=32"
point hw-d128-p512 $h "--set queues.pairs_per_ssd=512 --set queues.depth=128"
point hw-d128-p768 $h "--set queues.pairs_per_ssd=768 --set queues.depth=128"
point hw-ideal-d1024 $h "--set storage.model=\"ideal\""
point hw-ideal-d128 $h "--set storage.model=\"ideal\" --set queues.depth=128"
for r in 1 2 3; do
  point hw-d1024-base-r$r $h ""
  point hw-d1024-e2-r$r $h "" nvm-block-bench-e2
done
tar czf "$OUT/call2.tgz" -C "$OUT" call2
