#!/bin/bash
# Call 4 (as run): the stage-times probe, second version (call4-stage-times-v2.patch on
# d451ee0): the engine also returns each command's arrival (when its claim saw the entry: DW0),
# and the client splits the latency into submit -> arrival, arrival -> due, due -> post,
# post -> seen. The even point (handover on and off) and the default point, both protocols.
set -u
T0=$SECONDS
tar xJf build/carry/w7.tar.xz -C /tmp
B=/tmp/w7
O=$OUT/c4
mkdir -p "$O/stages"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
point() {  # dir name protocol table-point extra-args binary
  local left=$((570 - (SECONDS - T0)))
  [ $left -lt 25 ] && { echo "$2 skipped"; return; }
  read -r -a a <<< "$(PROTOCOL=$3 bash scripts/gpu/io-path-table.sh --args $4) $5"
  local t=$SECONDS
  timeout $left "$6" "${a[@]}" --report "$O/$1/$2.json" > "$O/$1/$2.txt" 2>&1
  echo "== $2 rc=$? $((SECONDS - t)) s: $(grep -m1 ' read :' "$O/$1/$2.txt" | sed 's/.*IOPS, //')"
}
OFF="--set gpu.engine_handover=false"
for p in emulator hardware; do
  point stages ${p:0:3}-even-on $p optane10_1g_even "" $B/nbb-stages2
  point stages ${p:0:3}-even-off $p optane10_1g_even "$OFF" $B/nbb-stages2
  point stages ${p:0:3}-default $p optane10_1g "" $B/nbb-stages2
done
(cd "$OUT" && tar czf stages.tgz c4)
echo "== all at $((SECONDS - T0)) s"
