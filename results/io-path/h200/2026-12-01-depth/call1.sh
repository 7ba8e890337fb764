#!/bin/bash
# Call 1 (as run): what of a queue's depth sets issue 19's 10 GiB point (b17646b, the table's
# arguments, one process of 3 runs each)? Depth 128 in rings laid out for 1024 (the probe patch
# scripts/gpu/probes/layout-entries.patch, BAM_PROBE_LAYOUT_ENTRIES); depth 1024 with fewer GPU
# threads (as many commands in flight as depth 128 or 256 allows); null drives at both depths.
# Then copy-ceiling beside with strided polls (translation reach against L2 capacity).
set -u
tar xJf build/carry/t1.tar.xz -C build/carry
B=build/carry/t1
O=$OUT/call1
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
point() {  # name protocol extra-args [env]
  read -r -a a <<< "$(PROTOCOL=$2 bash scripts/gpu/io-path-table.sh --args optane10_1g) $3"
  env ${4:-} "$B/nvm-block-bench" "${a[@]}" --report "$O/$1.json" > "$O/$1.txt" 2>&1
  local rc=$?
  echo "== $1 rc=$rc: $(grep -m1 'repeat:' "$O/$1.txt")" | tee -a "$O/marks.txt"
}
D128="--set queues.depth=128"
for p in hardware emulator; do
  point $p-d1024 $p ""
  point $p-d128 $p "$D128"
  point $p-d128-layout1024 $p "$D128" BAM_PROBE_LAYOUT_ENTRIES=1024
  point $p-d1024-t163840 $p "--set workload.threads=163840"
done
point hardware-d1024-t327680 hardware "--set workload.threads=327680"
point hardware-d128-t163840 hardware "$D128 --set workload.threads=163840"
point hardware-null-d1024 hardware "--set storage.model=null"
point hardware-null-d128 hardware "--set storage.model=null $D128"
"$B/copy-ceiling" beside 3 none poll:16:64 poll:64:64 poll:64:64:4096 poll:4096:64:2097152 \
  > "$O/beside.txt" 2>&1
echo "== beside rc=$?" >> "$O/marks.txt"
cat "$O/beside.txt"
tar czf "$OUT/call1.tgz" -C "$OUT" call1
