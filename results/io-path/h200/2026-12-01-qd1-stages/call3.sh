#!/bin/bash
# Call 3 (as run): the new build (build/carry/g8.tar.xz) against HEAD's (build/carry/old7.tar.xz)
# alternated at the cache's points in the hardware protocol (its kernels inline the ordering
# read's wait) and issue 19's 10 GiB and 4 GiB points, then issue 19's table in the hardware
# protocol with the new build. Raw files in /tmp/raw, tarred into $OUT.
set -u
T0=$SECONDS
tar xJf build/carry/g8.tar.xz -C /tmp
tar xJf build/carry/old7.tar.xz -C /tmp
export CUDA_MODULE_LOADING=EAGER
R=/tmp/raw
mkdir -p $R
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
OLD=/tmp/old7 NEW=/tmp/g8 OUT=$R/altcb ROUNDS=3 POINTS="cb_hot_reuse cb_miss_optane" \
  ARGS="--set storage.protocol=hardware" bash scripts/gpu/regression-points.sh > $R/altcb.txt 2>&1
echo "== altcb rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/altcb.tgz" altcb altcb.txt nvidia-smi.txt)
OLD=/tmp/old7 NEW=/tmp/g8 OUT=$R/alt10 ROUNDS=2 TABLE_PROTOCOL=hardware \
  POINTS="table_optane10_1g table_ideal_512_4g" bash scripts/gpu/regression-points.sh > $R/alt10.txt 2>&1
echo "== alt10 rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/alt10.tgz" alt10 alt10.txt)
BIN=/tmp/g8 OUT=$R/table PROTOCOL=hardware bash scripts/gpu/io-path-table.sh > "$R/table-hardware.txt" 2>&1
echo "== table hardware rc=$? at $((SECONDS - T0)) s"
(cd $R && tar czf "$OUT/table-hardware.tgz" table table-hardware.txt)
