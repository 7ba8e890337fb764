#!/bin/bash
# Call 3 (as run): where the 10 GiB point's latency goes, by stage (stage-times.patch on d451ee0:
# the engine writes each completion's due time and post time into DW0 / DW1, and the client
# splits each command's latency into submit -> due, due -> post, post -> seen; every 8th command
# of a thread, and every command slower than 1.5 ms; printed per run to stderr as "probe ...").
# The even point (64 x 4 on the first SMs) and the default point, both protocols, handover on
# and off at the even point; ref (d451ee0 unpatched) at the even point for the probe's cost.
set -u
T0=$SECONDS
tar xJf build/carry/w6.tar.xz -C /tmp
B=/tmp/w6
O=$OUT/c3
mkdir -p "$O/stages"
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
OFF="--set gpu.engine_handover=false"
for p in emulator hardware; do
  point stages ${p:0:3}-even-on $p optane10_1g_even "" $B/nbb-stages
  point stages ${p:0:3}-even-off $p optane10_1g_even "$OFF" $B/nbb-stages
  point stages ${p:0:3}-default $p optane10_1g "" $B/nbb-stages
  point stages ${p:0:3}-even-on-ref $p optane10_1g_even "" $B/ref
done
(cd "$OUT" && tar czf stages.tgz c3)
el all
