#!/bin/bash
# Two builds measured at the points whose numbers results/ records for the I/O and cache paths,
# in alternation (old, new, old, new, ...: drift of the machine hits both alike), each process a
# median of 3 runs:
#   nbb_ideal_512     nvm-block-bench, 512 B random reads, 1 ideal SSD x 128 QP x 1024, 1M GPU
#                     threads, 1 GiB of pinned media, ceilings measured in the same process
#   nbb_ideal_4096    the same at 4 KiB (LBA 4 KiB, 2 GiB of media)
#   cb_hot_reuse      cache-bench hot array_ref reuse, 8 KiB lines, warp layout, c = 64, 160
#                     iterations (32M elements on 4 optane-p5800x, GPU media)
#   cb_miss_optane    cache-bench cold array_ref reads, 512 B lines over 4 optane-p5800x, 1M
#                     threads x 8 lines, random (4 GiB of GPU media)
#   nbb_optane4_512   nvm-block-bench, 512 B random reads over 4 optane-p5800x (1 GiB of pinned
#                     media each), 128 QP x 1024 per SSD, 1M GPU threads
#   nbb_null_512      nvm-block-bench, 512 B reads of 1 null SSD (no data, no timing: the engine's
#                     and the queues' own rate), 128 QP x 1024, 1M GPU threads
#   cb_cold_ideal_4k  cache-bench cold array_ref reads, 4 KiB lines over 4 ideal SSDs, host
#                     media, reuse c = 512, 1M threads, random, ceilings measured in the same process
#                     (issue 20's first point)
#   cb_hot_coalesced  cache-bench hot warp-coalesced bam::array reads (no reuse), 8 KiB lines, warp
#                     layout, c = 32, 1M threads, 160 iterations (results/' best coalesced point)
#   table_<point>     a point of issue 19's table, as io-path-table.sh (beside this script) runs
#                     it (`io-path-table.sh --args <point>`), in TABLE_PROTOCOL (default hardware)
#   f4_<512|4k>_<T>   a job of Figure 4's sweep: 10 optane-p5800x (F4_SSDS) with 256 MiB of pinned
#                     media each, 512 B or 4 KiB random reads (configs/block/optane-x4-*), T GPU
#                     threads, 0.25 s
#   taxi_q0q5         taxi-query over a table of TAXI_ROWS rows (default 100 M; bam-data taxi-gen,
#                     seed 1), 4 optane-p5800x with pinned host media, a 4 GiB cache, bam only, Q0
#                     and Q5 at D = 30 and 20 with 4 KiB and 512 B lines, 3 runs a point, verified
#   bfs_kron, cc_kron bfs (4 sources) / cc on the Kronecker graph of scale GRAPH_SCALE (default 23,
#                     edge factor 16; bam-data graph-gen, seed 1), 4 optane-p5800x with pinned host
#                     media, a cache of an eighth of the file (64 MiB to 8 GiB), bam only, 3 runs,
#                     verified
# The applications' data is made by the new build's bam-data in DATA (default build/graph-work,
# where graph-apps.sh keeps its graphs: the same names and seeds) unless it is there, the
# generator's log in $OUT/data-<name>.log; a point whose data cannot be made fails the run (its
# data is tried once a call), the others still run. Their sizes are graph-apps.sh's (--sizes) and
# taxi.sh's (--media). The folders hold taxi-query, bfs, cc and bam-data too. Paths (OUT, DATA)
# must not contain spaces: a point's arguments are split on them.
# ARGS: extra arguments for both builds (e.g. --set storage.protocol=hardware for the f4_ and
# cache points); NEW_ARGS / OLD_ARGS: for the new / old build only, after ARGS (e.g. keys the old
# one does not know; or, with OLD and NEW the same folder, two settings of one build:
# OLD_ARGS="--set gpu.engine_blocks=64" NEW_ARGS="--set gpu.engine_blocks=80").
# Since 6eeb6b4 nvm-block-bench's default engine with 2 GiB or more of pinned media is the even one
# (gpu.engine_placement auto: table_ideal_512_4g, table_ideal_4k_8g, table_optane4_512,
# table_optane10_256m, table_optane10_1g, nbb_ideal_4096, nbb_optane4_512, the f4_ points at 8 and
# 10 SSDs): against an older build that compares the placement too; ARGS="--set
# gpu.engine_placement=scheduler" compares the engines alone (both builds know the key since
# c61a382).
# Old runs before new in odd rounds and after it in even ones (an order effect falls on both).
# An unknown point is named once and fails the run; the others still run.
# Each folder holds stripped nvm-block-bench and cache-bench. Reports and logs go to
# $OUT/<point>_<build>_<round>.{json,txt}; scripts/gpu/regression-table.py makes the table.
# Usage: OLD=dir NEW=dir OUT=out [ROUNDS=2] [POINTS="nbb_ideal_512 ..."] [ARGS="..."]
#        [NEW_ARGS="..."] [OLD_ARGS="..."] [TABLE_PROTOCOL=hardware] [F4_SSDS=10]
#        [TAXI_ROWS=100000000] [GRAPH_SCALE=23] [DATA=build/graph-work]
#        scripts/gpu/regression-points.sh
set -u
here=$(dirname "$0")
: "${OLD:?folder of the old build}" "${NEW:?folder of the new build}" "${OUT:=out}"
: "${ROUNDS:=2}" "${POINTS:=nbb_ideal_512 nbb_ideal_4096 cb_hot_reuse cb_miss_optane}"
: "${TAXI_ROWS:=100000000}" "${GRAPH_SCALE:=23}" "${DATA:=build/graph-work}"
mkdir -p "$OUT"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current,clocks.sm,clocks.mem \
  --format=csv > "$OUT/nvidia-smi.csv" 2>&1

NBB=(--backend emulated --outstanding 1 --pairs 128 --depth 1024 --threads 1048576 --model ideal
  --repeat 3 --measure-ceilings)
CB=(--backend emulated --ssds 4 --model optane-p5800x --pairs 128 --depth 1024 --repeat 3)
taxi_table() { echo "$DATA/taxi-$TAXI_ROWS"; }
kron_graph() { echo "$DATA/kron-s$GRAPH_SCALE.csr"; }
# make_data POINT: the point's data in DATA, made by the new build's bam-data unless it is there
# (bam-data writes a temporary sibling and renames it: a file there is whole). Once a call.
failed_data=" "
make_data() {
  local out recipe what=()
  case $1 in  # the recipes of taxi.sh and graph-apps.sh, whose folders these may share
    taxi_q0q5)
      out=$(taxi_table)
      recipe=$(bash "$here/taxi.sh" --gen-args "$TAXI_ROWS") ;;
    bfs_kron | cc_kron)
      out=$(kron_graph)
      recipe=$(bash "$here/graph-apps.sh" --gen-args kron "$GRAPH_SCALE") ;;
    *) return 0 ;;
  esac
  read -r -a what <<< "$recipe"
  [ -e "$out" ] && return 0
  [[ $failed_data == *" $out "* ]] && return 1
  mkdir -p "$DATA"
  local t0=$SECONDS log
  log="$OUT/data-$(basename "$out").log"
  timeout 600 "$NEW/bam-data" "${what[@]}" --out "$out" > "$log" 2>&1
  local rc=$?
  echo "== data $(basename "$out") rc=$rc $((SECONDS - t0)) s"
  [ $rc -eq 0 ] && return 0
  tail -5 "$log" >&2
  # A generator stopped by the timeout leaves its temporary sibling (.NAME.tmp...) behind.
  rm -rf "$out" "$(dirname "$out")/.$(basename "$out").tmp"*
  failed_data="$failed_data$out "
  return 1
}
# graph_args ALGO: bfs or cc over the Kronecker graph (graph-apps.sh's sizes for 4 SSDs).
graph_args() {
  local f sizes media cache extra=""
  f=$(kron_graph)
  sizes=$(bash "$here/graph-apps.sh" --sizes "$f" 4) || return 1
  read -r media cache <<< "$sizes"
  [ "$1" = bfs ] && extra="--sources 4"
  echo "$1 --graph $f --backend emulated --ssds 4 --model optane-p5800x --pairs 128 --depth 1024" \
    "--set storage.media.kind=host --set storage.media.size_bytes=$media" \
    "--set cache.line_size=4096 --set cache.capacity=$cache" \
    "--set graph.access=bam --repeat 3 --verify $extra"
}
args_of() {
  case $1 in
    nbb_ideal_512) echo nvm-block-bench "${NBB[@]}" --io-size 512 \
      --set storage.media.size_bytes=1073741824 --ios 8388608 ;;
    nbb_ideal_4096) echo nvm-block-bench "${NBB[@]}" --io-size 4096 --set storage.lba_size=4096 \
      --set storage.media.size_bytes=2147483648 --ios 4194304 ;;
    cb_hot_reuse) echo cache-bench "${CB[@]}" --set storage.media.size_bytes=268435456 \
      --set storage.media.kind=gpu --set cache.capacity=268435456 \
      --set cache_bench.elements=33554432 --set cache_bench.layout=warp --set cache.line_size=8192 \
      --pattern sequential --threads 524288 --set cache_bench.coarsening=64 \
      --set cache_bench.iterations=160 --set cache_bench.mode=reuse ;;
    cb_miss_optane) echo cache-bench "${CB[@]}" --set storage.media.size_bytes=1073741824 \
      --set storage.media.kind=gpu --set cache.line_size=512 --set cache.capacity=268435456 \
      --set cache_bench.temperature=cold --set cache_bench.elements=536870912 --threads 1048576 \
      --set cache_bench.mode=reuse --set cache_bench.coarsening=64 --set cache_bench.iterations=8 \
      --pattern random ;;
    cb_cold_ideal_4k) echo cache-bench --backend emulated --ssds 4 --model ideal --pairs 128 \
      --depth 1024 --repeat 3 --measure-ceilings --set storage.media.size_bytes=2147483648 \
      --set storage.media.kind=host --set cache.capacity=2147483648 \
      --set cache_bench.temperature=cold --set cache_bench.elements=1073741824 \
      --set cache.line_size=4096 --threads 1048576 --set cache_bench.mode=reuse \
      --set cache_bench.coarsening=512 --pattern random ;;
    cb_hot_coalesced) echo cache-bench "${CB[@]}" --set storage.media.size_bytes=268435456 \
      --set storage.media.kind=gpu --set cache.capacity=268435456 \
      --set cache_bench.elements=33554432 --set cache_bench.layout=warp --set cache.line_size=8192 \
      --pattern sequential --threads 1048576 --set cache_bench.coarsening=32 \
      --set cache_bench.iterations=160 --set cache_bench.mode=coalesced ;;
    nbb_optane4_512) echo nvm-block-bench --backend emulated --outstanding 1 --pairs 128 \
      --depth 1024 --threads 1048576 --ssds 4 --model optane-p5800x --repeat 3 --io-size 512 \
      --set storage.media.size_bytes=1073741824 --ios 33554432 ;;
    nbb_null_512) echo nvm-block-bench --backend emulated --outstanding 1 --pairs 128 \
      --depth 1024 --threads 1048576 --model null --repeat 3 --io-size 512 \
      --set storage.media.size_bytes=1073741824 --ios 16777216 ;;
    table_*)
      local t
      t=$(PROTOCOL=${TABLE_PROTOCOL:-hardware} bash "$here/io-path-table.sh" --args "${1#table_}") ||
        return 1
      echo nvm-block-bench "$t" ;;
    f4_512_* | f4_4k_*)
      local size=${1#f4_} threads
      threads=${size#*_} size=${size%%_*}
      [[ $threads =~ ^[0-9]+$ ]] || { echo "unknown point $1" >&2; return 1; }
      local cfg="$here/../../configs/block/optane-x4-512b-randread.json" extra="--io-size 512"
      [ "$size" = 4k ] && cfg="$here/../../configs/block/optane-x4-4k-randread.json" extra=""
      # shellcheck disable=SC2086
      echo nvm-block-bench --config "$cfg" --set storage.ssd_count="${F4_SSDS:-10}" \
        --set storage.media.size_bytes=268435456 --set workload.ios=0 \
        --set workload.duration_s=0.25 --repeat 3 --threads "$threads" $extra ;;
    taxi_q0q5)
      local media
      media=$(bash "$here/taxi.sh" --media "$TAXI_ROWS" 4) || return 1
      echo taxi-query --backend emulated --model optane-p5800x --ssds 4 \
        --set storage.media.kind=host --set storage.media.size_bytes=$media --pairs 128 \
        --depth 1024 --threads 16 --set cache.capacity=4294967296 \
        --set taxi.row_group_rows=4194304 --data "$(taxi_table)" --verify --impl bam --repeat 3 \
        --sweep cache.line_size=4096,512 --sweep taxi.min_distance=30,20 \
        --sweep taxi.queries=q0,q5 ;;
    bfs_kron | cc_kron)
      [ -e "$(kron_graph)" ] || { echo "no graph $(kron_graph)" >&2; return 1; }
      graph_args "${1%_kron}" ;;
    *) echo "unknown point $1" >&2; return 1 ;;
  esac
}
status=0
known=""
for point in $POINTS; do
  make_data "$point" || { echo "no data for $point" >&2; status=1; continue; }
  if args_of "$point" > /dev/null; then known="$known $point"; else status=1; fi
done
for round in $(seq 1 "$ROUNDS"); do
  order="old new"
  [ $((round % 2)) -eq 0 ] && order="new old"
  for point in $known; do
    for build in $order; do
      dir=$OLD; [ $build = new ] && dir=$NEW
      extra=${OLD_ARGS:-}; [ $build = new ] && extra=${NEW_ARGS:-}
      read -r -a a <<< "$(args_of "$point") ${ARGS:-} $extra"
      name=${point}_${build}_$round
      t0=$SECONDS
      timeout 300 "$dir/${a[0]}" "${a[@]:1}" --report "$OUT/$name.json" > "$OUT/$name.txt" 2>&1
      rc=$?
      echo "== $name rc=$rc $((SECONDS - t0)) s: $(grep -E 'repeat:' "$OUT/$name.txt" | head -1)"
      [ $rc -eq 0 ] || status=1
    done
  done
done
exit $status
