#!/bin/bash
# Call 2 (as run): on one machine, 854d73b's 10 GiB point (issue 19's table: 10 x optane, 1 GiB
# of pinned media each) at the default placement in both protocols and with first-sms in the
# hardware protocol, one process of 3 runs each, and sm-host-reads (each SM's share of random
# host reads by placement, scripts/gpu/probes/sm-host-reads.cu) between them: does the machine's
# division of host reads among the engine's SMs go with the point's rate and tail?
set -u
tar xJf build/carry/s2.tar.xz -C build/carry
B=build/carry/s2
O=$OUT/call2
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
point() {  # name protocol extra-args
  read -r -a a <<< "$(PROTOCOL=$2 bash scripts/gpu/io-path-table.sh --args optane10_1g) $3"
  "$B/nvm-block-bench" "${a[@]}" --report "$O/$1.json" > "$O/$1.txt" 2>&1
  echo "== $1 rc=$?: $(grep -m1 'repeat:' "$O/$1.txt")"
}
point default-hw hardware ""
point default-emu emulator ""
"$B/sm-host-reads" 30 3 > "$O/sm-host-reads.txt" 2>&1
echo "== sm-host-reads rc=$?"
point first-sms-hw hardware "--set gpu.engine_placement=first-sms"
point default-hw-2 hardware ""
tar czf "$OUT/call2.tgz" -C "$OUT" call2
