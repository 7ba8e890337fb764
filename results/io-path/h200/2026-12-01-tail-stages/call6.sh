#!/bin/bash
# Call 6 (as run): the fair claim as kept (call6-fair-claim-kept.patch: the equal shares only
# when the cap cannot hold every entry the queues show, so a turn that takes everything costs one
# warp reduction more, not two scans) against d451ee0 (ref): first the GPU tests built with it,
# then QD1 `null` (2 rounds), the even point (2 rounds), the 4 GiB and 1 GiB `ideal` points and
# the default point, both protocols, alternated.
set -u
T0=$SECONDS
tar xJf build/carry/w9.tar.xz -C /tmp
B=/tmp/w9
O=$OUT/c6
mkdir -p "$O/ab"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
BIN=$B/tests OUT=$O/tests TEST_TIMEOUT=100 timeout 150 bash scripts/gpu/run-gpu-tests.sh > "$O/tests.txt" 2>&1
echo "tests rc=$?"; grep -E '^==|FAILED' "$O/tests.txt" | head -30
(cd "$OUT" && tar czf tests.tgz c6/tests c6/tests.txt c6/nvidia-smi.txt)
point() {  # dir name protocol table-point extra-args binary
  local left=$((390 - (SECONDS - T0)))
  [ $left -lt 20 ] && { echo "$2 skipped"; return; }
  read -r -a a <<< "$(PROTOCOL=$3 bash scripts/gpu/io-path-table.sh --args $4) $5"
  local t=$SECONDS
  timeout $left "$6" "${a[@]}" --report "$O/$1/$2.json" > "$O/$1/$2.txt" 2>&1
  echo "== $2 rc=$? $((SECONDS - t)) s: $(grep -m1 ' read :' "$O/$1/$2.txt" | sed 's/.*IOPS, //')"
}
for pt in qd1_null optane10_1g_even; do
  for r in 1 2; do
    for p in emulator hardware; do
      point ab ${p:0:3}-$pt-ref-r$r $p $pt "" $B/ref
      point ab ${p:0:3}-$pt-fair-r$r $p $pt "" $B/nbb-fair2
    done
  done
done
for pt in ideal_512_4g ideal_512_1g optane10_1g; do
  for p in emulator hardware; do
    point ab ${p:0:3}-$pt-ref $p $pt "" $B/ref
    point ab ${p:0:3}-$pt-fair $p $pt "" $B/nbb-fair2
  done
done
(cd "$OUT" && tar czf ab.tgz c6/ab)
echo "== all at $((SECONDS - T0)) s"
