#!/bin/bash
# Call 5 (as run): a fair claim (call5-fair-claim.patch on d451ee0: each engine turn first gives
# every queue with entries an equal share of its 32 entries, then the rest in the rotating order;
# before, the queue first in the order took up to all 32) against d451ee0 (ref). The even point
# and the default point, both protocols, 2 rounds alternated; the 4 GiB and 1 GiB `ideal` points,
# and QD1 `null`, hardware protocol, one round; then the GPU tests built with it.
set -u
T0=$SECONDS
tar xJf build/carry/w8.tar.xz -C /tmp
B=/tmp/w8
O=$OUT/c5
mkdir -p "$O/ab"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
point() {  # dir name protocol table-point extra-args binary
  local left=$((480 - (SECONDS - T0)))
  [ $left -lt 25 ] && { echo "$2 skipped"; return; }
  read -r -a a <<< "$(PROTOCOL=$3 bash scripts/gpu/io-path-table.sh --args $4) $5"
  local t=$SECONDS
  timeout $left "$6" "${a[@]}" --report "$O/$1/$2.json" > "$O/$1/$2.txt" 2>&1
  echo "== $2 rc=$? $((SECONDS - t)) s: $(grep -m1 ' read :' "$O/$1/$2.txt" | sed 's/.*IOPS, //')"
}
for r in 1 2; do
  for p in emulator hardware; do
    for b in ref fair; do
      bin=$B/ref; [ $b = fair ] && bin=$B/nbb-fair
      point ab ${p:0:3}-even-$b-r$r $p optane10_1g_even "" $bin
      point ab ${p:0:3}-default-$b-r$r $p optane10_1g "" $bin
    done
  done
done
for pt in ideal_512_4g ideal_512_1g qd1_null; do
  point ab har-$pt-ref hardware $pt "" $B/ref
  point ab har-$pt-fair hardware $pt "" $B/nbb-fair
done
(cd "$OUT" && tar czf ab.tgz c5/ab c5/nvidia-smi.txt)
echo "== ab at $((SECONDS - T0)) s"
BIN=$B/tests OUT=$O/tests TEST_TIMEOUT=100 timeout 200 bash scripts/gpu/run-gpu-tests.sh > "$O/tests.txt" 2>&1
echo "tests rc=$?"; grep -E '^==|FAILED' "$O/tests.txt" | head -30
(cd "$OUT" && tar czf tests.tgz c5/tests c5/tests.txt)
echo "== all at $((SECONDS - T0)) s"
