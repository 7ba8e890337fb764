#!/bin/bash
# Call 5 of the ordering read through a hold: issue 19's table (scripts/gpu/io-path-table.sh,
# one process of 3 runs a point, ceilings over each point's footprint) in both protocols with the
# final build (new: fe6fe75's code) and with dff7c2f's (old), new first in the hardware protocol
# and old first in the emulator one. Run from the repository root with build/carry/h5.tar.xz
# carried (new/ and old/: nvm-block-bench).
set -u
O=$OUT/c5
B=/tmp/h5
mkdir -p "$O" "$B"
tar xJf build/carry/h5.tar.xz -C "$B"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
for pr in hardware emulator; do
  order="new old"; [ $pr = emulator ] && order="old new"
  for build in $order; do
    t0=$SECONDS
    BIN=$B/$build OUT=$O/table-$build PROTOCOL=$pr bash scripts/gpu/io-path-table.sh \
      > "$O/table-$build-$pr.log" 2>&1
    echo "table $build $pr rc=$? $((SECONDS - t0)) s"
  done
done
for build in new old; do
  /usr/bin/python3 scripts/gpu/io-path-table.py "$O/table-$build" --json "$O/table-$build.json" \
    > "$O/table-$build.md" 2>&1
done
cat "$O/table-new.md"
cd "$OUT" && tar czf c5.tgz c5 && rm -rf c5
