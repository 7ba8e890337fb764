#!/bin/bash
# Call 4 of the ordering read through a hold: the final build (new: call 2's code, taxi-query's
# array kernel bounded to 3 blocks an SM, and the engine's timed commands arriving when the turn
# saw their doorbell, not after their fetch). Every GPU test; then the timed points against call
# 2's build (mid: the hold only), alternated, 2 rounds, both protocols' QD1 optane and the
# hardware protocol's optane rates; then taxi-query (as call 3) and bfs (scale 23, no verify)
# against dff7c2f's build (old). Run from the repository root with build/carry/h4.tar.xz carried
# (new/, mid/, old/).
set -u
O=$OUT/c4
B=/tmp/h4
mkdir -p "$O" "$B"
tar xJf build/carry/h4.tar.xz -C "$B"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
BIN=$B/new OUT=$O/tests bash scripts/gpu/run-gpu-tests.sh > "$O/tests.txt" 2>&1
echo "tests rc=$?"; grep -E "^== " "$O/tests.txt"
OLD=$B/mid NEW=$B/new OUT=$O/points-emu ROUNDS=2 TABLE_PROTOCOL=emulator \
  POINTS="table_qd1_optane table_qd1_null" \
  bash scripts/gpu/regression-points.sh > "$O/points-emu.txt" 2>&1
echo "points-emu rc=$?"
/usr/bin/python3 scripts/gpu/regression-table.py "$O/points-emu" > "$O/table-emu.md" 2>&1
cat "$O/table-emu.md"
OLD=$B/mid NEW=$B/new OUT=$O/points ROUNDS=2 \
  POINTS="table_qd1_optane table_optane1_512 nbb_optane4_512 f4_512_1024 f4_4k_1024 f4_512_4096 table_optane10_1g cb_miss_optane" \
  bash scripts/gpu/regression-points.sh > "$O/points.txt" 2>&1
echo "points rc=$?"
/usr/bin/python3 scripts/gpu/regression-table.py "$O/points" > "$O/table.md" 2>&1
cat "$O/table.md"
T=/tmp/taxi-100m
rows=100000000
"$B/new/bam-data" taxi-gen --rows $rows --seed 1 --out "$T" > "$O/taxi-gen.txt" 2>&1
echo "taxi-gen rc=$?"
media=$(python3 -c "r, n = $rows, 4; b = (r * 48 * 9 // 8) // n + (64 << 20); print((b + 4095) // 4096 * 4096)")
for round in 1 2; do
  order="old new"; [ $round -eq 2 ] && order="new old"
  for build in $order; do
    name=taxi_${build}_$round
    t0=$SECONDS
    timeout 200 "$B/$build/taxi-query" --backend emulated --model optane-p5800x --ssds 4 \
      --set storage.media.kind=host --set storage.media.size_bytes=$media \
      --pairs 128 --depth 1024 --threads 16 --set cache.capacity=4294967296 \
      --set taxi.row_group_rows=4194304 --data "$T" --verify --impl bam --repeat 3 \
      --sweep cache.line_size=4096,512 --sweep taxi.min_distance=30,20 --sweep taxi.queries=q0,q5 \
      --report "$O/$name.json" --csv "$O/$name.csv" > "$O/$name.txt" 2>&1
    echo "== $name rc=$? $((SECONDS - t0)) s"
  done
done
for round in 1 2; do
  order="old new"; [ $round -eq 2 ] && order="new old"
  for build in $order; do
    BIN=$B/$build OUT=$O/graph_${build}_$round SCALE=23 SOURCES=4 VERIFY=0 MODES=bam \
      WORK=/tmp/gw LIMIT=200 EXTRA="--repeat 3" STEPS="bfs-kron-optane-p5800x-x4" \
      bash scripts/gpu/graph-apps.sh 2>&1 | grep -E "^== |per source" | sed "s/^/$build r$round /"
  done
done
cd "$OUT" && tar czf c4.tgz c4 && rm -rf c4
