#!/bin/bash
# Call 3 (as run): the 10 GiB point with the engine on the first SMs in 16 x 16 and 32 x 8
# blocks, both protocols, 2 rounds alternated with the default (e1ff784, rate and tail); the 4 GiB
# point the same, one round; the command-ID pool as large as the ring (cid-count-ring.patch)
# against e1ff784 at depth 1024, 2 rounds; copy-ceiling beside polls of 1 GiB at set sleeps
# (host reads beside L2 misses at known rates). Each part tarred as it ends.
set -u
T0=$SECONDS
for t in w1 w2; do tar xJf build/carry/$t.tar.xz -C /tmp; done
B=/tmp/w1
O=$OUT/c3
mkdir -p "$O/shape" "$O/cid"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
el() { echo "== $1 at $((SECONDS - T0)) s"; }
point() {  # dir name protocol table-point extra-args binary
  local left=$((560 - (SECONDS - T0)))
  [ $left -lt 25 ] && { echo "$2 skipped"; return; }
  read -r -a a <<< "$(PROTOCOL=$3 bash scripts/gpu/io-path-table.sh --args $4) $5"
  timeout $left "$6" "${a[@]}" --report "$O/$1/$2.json" > "$O/$1/$2.txt" 2>&1
  echo "== $2 rc=$?: $(grep -m1 ' read :' "$O/$1/$2.txt" | sed 's/.*IOPS, //')"
}
FS="--set gpu.engine_placement=first-sms"
S32="--set gpu.engine_blocks=32 --set gpu.engine_warps_per_block=8"
for r in 1 2; do
  for p in hardware emulator; do
    point shape $p-fs16-r$r $p optane10_1g "$FS" $B/head/nvm-block-bench
    point shape $p-fs32-r$r $p optane10_1g "$FS $S32" $B/head/nvm-block-bench
    point shape $p-default-r$r $p optane10_1g "" $B/head/nvm-block-bench
  done
done
for p in hardware emulator; do
  point shape $p-4g-fs32 $p ideal_512_4g "$FS $S32" $B/head/nvm-block-bench
  point shape $p-4g-fs16 $p ideal_512_4g "$FS" $B/head/nvm-block-bench
  point shape $p-4g-default $p ideal_512_4g "" $B/head/nvm-block-bench
done
(cd "$OUT" && tar czf shape.tgz c3/shape c3/nvidia-smi.txt)
el shape
for r in 1 2; do
  point cid hw-head-r$r hardware optane10_1g "" $B/head/nvm-block-bench
  point cid hw-cid-r$r hardware optane10_1g "" /tmp/w2/nbb-cid
done
(cd "$OUT" && tar czf cid.tgz c3/cid)
el cid
left=$((580 - (SECONDS - T0)))
if [ $left -gt 60 ]; then
  nvcc -O3 -std=c++20 -arch=sm_90 -Ilib/include -o /tmp/copy-ceiling scripts/gpu/probes/copy-ceiling.cu \
    > "$O/beside-build.txt" 2>&1 && \
  timeout $((580 - (SECONDS - T0))) /tmp/copy-ceiling beside 3 none poll:1024:65536 poll:1024:8192 \
    poll:1024:1024 poll:1024:64 none > "$O/beside.txt" 2>&1
  echo "beside rc=$?"; cat "$O/beside.txt"
  (cd "$OUT" && tar czf beside.tgz c3/beside.txt c3/beside-build.txt)
fi
el all
