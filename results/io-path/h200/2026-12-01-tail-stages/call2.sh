#!/bin/bash
# Call 2 (as run): the queue handover's pool waits. d451ee0 (ref; its GPU code is e1ff784's)
# against three builds of it with engine.cuh's handover constants changed (call2-*.patch):
# fany500 (handover_force_any_ns 2 ms -> 500 us), f50any500 (also handover_force_ns 200 -> 50 us),
# ft64 (handover_full_turns 16 -> 64). The even point (64 x 4 on the first SMs), both protocols,
# 2 rounds alternated; then the default point (the scheduler's 16 x 16), both protocols, 1 round.
set -u
T0=$SECONDS
tar xJf build/carry/w5.tar.xz -C /tmp
B=/tmp/w5
O=$OUT/c2
mkdir -p "$O/even" "$O/default"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
el() { echo "== $1 at $((SECONDS - T0)) s"; }
point() {  # dir name protocol table-point extra-args binary
  local left=$((570 - (SECONDS - T0)))
  [ $left -lt 25 ] && { echo "$2 skipped"; return; }
  read -r -a a <<< "$(PROTOCOL=$3 bash scripts/gpu/io-path-table.sh --args $4) $5"
  local t=$SECONDS
  timeout $left "$6" "${a[@]}" --report "$O/$1/$2.json" > "$O/$1/$2.txt" 2>&1
  echo "== $2 rc=$? $((SECONDS - t)) s: $(grep -m1 ' read :' "$O/$1/$2.txt" | sed 's/.*IOPS, //')"
}
for r in 1 2; do
  for p in emulator hardware; do
    for b in ref fany500 f50any500 ft64; do
      point even ${p:0:3}-$b-r$r $p optane10_1g_even "" $B/$b
    done
  done
done
(cd "$OUT" && tar czf even.tgz c2/even c2/nvidia-smi.txt)
el even
for p in emulator hardware; do
  for b in ref fany500 f50any500; do
    point default ${p:0:3}-$b $p optane10_1g "" $B/$b
  done
done
(cd "$OUT" && tar czf default.tgz c2/default)
el all
