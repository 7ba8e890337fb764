#!/bin/bash
# Call 1 (as run): fair-claim-test.patch's GPU test against both engines (w11: new = 5a5379b's,
# old = d451ee0's); fair-claim-scan-first.patch against HEAD's build at QD1 null and the even
# 10 GiB point, both protocols, 2 rounds alternated (w12); the applications with HEAD's build (w10,
# the fair claim) against e1ff784's (w1/head). Each part tarred as it ends.
set -u
T0=$SECONDS
for t in w1 w10 w11 w12; do tar xJf build/carry/$t.tar.xz -C /tmp; done
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
el() { echo "== $1 at $((SECONDS - T0)) s"; }

mkdir -p "$OUT/c1/test"
for b in new old; do
  timeout 120 /tmp/w11/$b/emulated_drives_test --gtest_filter='GpuArbitration.*' \
    > "$OUT/c1/test/$b.txt" 2>&1
  echo "w11 $b rc=$?" | tee -a "$OUT/c1/test/rc.txt"
done
el test

mkdir -p /tmp/ref /tmp/sf
cp /tmp/w12/ref /tmp/ref/nvm-block-bench
cp /tmp/w12/nbb-scanfirst /tmp/sf/nvm-block-bench
for p in hardware emulator; do
  OLD=/tmp/ref NEW=/tmp/sf OUT=$OUT/c1/ab-$p ROUNDS=2 TABLE_PROTOCOL=$p \
    POINTS="table_qd1_null table_optane10_1g_even" bash scripts/gpu/regression-points.sh \
    > "$OUT/c1/ab-$p.txt" 2>&1
  el "ab $p"
done
(cd "$OUT" && tar czf c1-ab.tgz c1 nvidia-smi.txt)

OLD=/tmp/w1/head NEW=/tmp/w10 OUT=$OUT/apps ROUNDS=1 TAXI_ROWS=50000000 GRAPH_SCALE=23 \
  POINTS="taxi_q0q5 bfs_kron cc_kron" bash scripts/gpu/regression-points.sh > "$OUT/apps.txt" 2>&1
el apps
(cd "$OUT" && tar czf c1-apps.tgz apps apps.txt nvidia-smi.txt)
