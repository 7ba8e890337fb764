#!/bin/bash
# Call 3 (as run): call 2 found the 10 GiB point set by each ring's size, not by the memory the
# rings cycle through, the commands in flight or the model's backlog. Which ring: SQs of 1024
# with CQs of 128, and SQs of 128 with CQs of 1024 (scripts/gpu/probes/cq-entries.patch,
# BAM_PROBE_CQ_ENTRIES), hardware protocol, one process each. Then E2 (the engine's copies with an
# L2 evict-first policy, +2 % at the 10 GiB point in call 2) against b17646b at the other
# nvm-block-bench points of results/, 2 rounds.
set -u
tar xJf build/carry/t4.tar.xz -C build/carry
B=build/carry/t4
O=$OUT/call3
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
point() {  # name protocol extra-args [env]
  read -r -a a <<< "$(PROTOCOL=$2 bash scripts/gpu/io-path-table.sh --args optane10_1g) $3"
  env ${4:-} "$B/cq/nvm-block-bench" "${a[@]}" --report "$O/$1.json" > "$O/$1.txt" 2>&1
  local rc=$?
  echo "== $1 rc=$rc: $(grep -m1 'repeat:' "$O/$1.txt")" | tee -a "$O/marks.txt"
}
h=hardware
point hw-d1024 $h ""
point hw-sq1024-cq128 $h "" BAM_PROBE_CQ_ENTRIES=128
point hw-sq128-cq1024 $h "--set queues.depth=128" BAM_PROBE_CQ_ENTRIES=1024
point hw-d128 $h "--set queues.depth=128"
mkdir -p "$O/e2"
OLD=$B/base NEW=$B/e2 ROUNDS=2 OUT=$O/e2 TABLE_PROTOCOL=hardware \
  POINTS="table_ideal_512_1g table_ideal_512_4g table_ideal_4k_8g table_optane10_256m nbb_null_512 f4_512_1024 f4_4k_4096" \
  scripts/gpu/regression-points.sh > "$O/e2.txt" 2>&1
grep '^==' "$O/e2.txt"
tar czf "$OUT/call3.tgz" -C "$OUT" call3
