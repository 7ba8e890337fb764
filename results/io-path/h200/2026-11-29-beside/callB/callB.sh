#!/bin/bash
# Session 2026-11-29 (12:43-15:43), call B: the hardware protocol's engine shapes alternated, 2
# rounds, one process a point: O = 8ffa220 with gpu.engine_blocks=16 given (a7a2066's shape: the
# ordering warps taken from the 256), C = 8ffa220's automatic shape (17 x 16, the ordering warps
# beside the application's 256, 6 spare warps that may take handed-over queues), S = C with
# spare-exit.patch (the spare warps leave at start).
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/n2.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
O=$OUT/b; mkdir -p $O
P="qd1_null qd1_optane ideal_512_1g optane10_1g"
for r in 1 2; do
  for v in O C S; do
    b=$v; extra=""; [ $v = O ] && { b=C; extra="--set gpu.engine_blocks=16"; }
    BIN=$W/$b OUT=$O/${v}_$r PROTOCOL=hardware POINTS="$P" EXTRA="$extra" bash scripts/gpu/io-path-table.sh > $O/${v}_$r.log 2>&1
    echo "== $v $r $((SECONDS-T0)) s"; grep -E "^== " $O/${v}_$r.log | cut -c1-150
  done
done
tar -C $OUT -czf $OUT/b.tgz b && rm -rf $O
echo "== all $((SECONDS-T0)) s"
