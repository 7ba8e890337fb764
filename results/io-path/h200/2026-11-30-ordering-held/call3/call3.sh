#!/bin/bash
# Call 3 of the ordering read through a hold (the final code, as call 2): the applications whose kernels the change touches,
# the new build against dff7c2f's, alternated (old then new in round 1, new then old in round 2),
# storage protocol hardware (the default). taxi-query: a table of 100 M rows made here
# (bam-data taxi-gen, seed 1), 4 emulated optane-p5800x with the media in pinned host memory, a
# 4 GiB cache, bam only, Q0 and Q5 at D = 30 and 20, 4 KiB and 512 B lines, 3 runs a point,
# verified. bfs (4 sources) and cc: the Kronecker graph of scale 23 (bam-data graph-gen, seed 1),
# 4 optane-p5800x, bam only, 3 runs, verified in round 1 (scripts/gpu/graph-apps.sh). Run from the
# repository root with build/carry/h2.tar.xz carried.
set -u
O=$OUT/c3
B=/tmp/h2
mkdir -p "$O" "$B"
[ -d "$B/new" ] || tar xJf build/carry/h2.tar.xz -C "$B"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
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
  verify=1; [ $round -eq 2 ] && verify=0
  for build in $order; do
    BIN=$B/$build OUT=$O/graph_${build}_$round SCALE=23 SOURCES=4 VERIFY=$verify MODES=bam \
      WORK=/tmp/gw LIMIT=200 EXTRA="--repeat 3" \
      STEPS="bfs-kron-optane-p5800x-x4 cc-kron-optane-p5800x-x4" \
      bash scripts/gpu/graph-apps.sh 2>&1 | sed "s/^/$build r$round /"
  done
done
cd "$OUT" && tar czf c3.tgz c3 && rm -rf c3
