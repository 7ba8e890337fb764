#!/bin/bash
# Call 1 (as run): (a) client-state-evict-last.patch (the client's turn counters and markers with
# the persisting L2 policy, keep1; also its CQ DW3 polls, keep2) against e1ff784 (head) at the
# 10 GiB point, hardware protocol 2 rounds alternated, emulator 1 round, depth 128 one round;
# (b) the hardware protocol's ordering warps beside an explicit engine shape (obeside: d451ee0
# with ordering-beside-explicit.patch) against head at the even point (64 x 4 on the first SMs),
# handover on and off, 2 rounds alternated; (c) head at 66 x 5 on the first SMs (330 warps: 320
# for the application's 1,280 queues, 4 each, and the 10 ordering warps), handover off and on.
set -u
T0=$SECONDS
for t in w1 w3 w4; do tar xJf build/carry/$t.tar.xz -C /tmp; done
HEAD=/tmp/w1/head/nvm-block-bench
O=$OUT/c1
mkdir -p "$O/keep" "$O/order"
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
  for b in head keep1 keep2; do
    bin=$HEAD; [ $b != head ] && bin=/tmp/w3/nbb-$b
    point keep hw-$b-r$r hardware optane10_1g "" $bin
  done
done
for b in head keep1 keep2; do
  bin=$HEAD; [ $b != head ] && bin=/tmp/w3/nbb-$b
  point keep emu-$b emulator optane10_1g "" $bin
done
point keep hw-head-d128 hardware optane10_1g "--set queues.depth=128" $HEAD
point keep hw-keep1-d128 hardware optane10_1g "--set queues.depth=128" /tmp/w3/nbb-keep1
(cd "$OUT" && tar czf keep.tgz c1/keep c1/nvidia-smi.txt)
el keep
OFF="--set gpu.engine_handover=false"
for r in 1 2; do
  point order head-on-r$r hardware optane10_1g_even "" $HEAD
  point order obeside-on-r$r hardware optane10_1g_even "" /tmp/w4/nbb-obeside
  point order head-off-r$r hardware optane10_1g_even "$OFF" $HEAD
  point order obeside-off-r$r hardware optane10_1g_even "$OFF" /tmp/w4/nbb-obeside
done
S665="--set gpu.engine_blocks=66 --set gpu.engine_warps_per_block=5"
point order head-66x5-off hardware optane10_1g_even "$S665 $OFF" $HEAD
point order head-66x5-on hardware optane10_1g_even "$S665" $HEAD
(cd "$OUT" && tar czf order.tgz c1/order)
el all
