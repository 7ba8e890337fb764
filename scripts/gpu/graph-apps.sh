#!/bin/bash
# Issue 15 on a GPU machine: bfs and cc on a Kronecker and a uniform random graph generated here
# (bam-data graph-gen, same seed every time), in every access mode (gpu-memory, host-zero-copy,
# uvm, bam-preloaded, bam: one process per storage set, so the report of its bam point carries
# the compute / cache-API / storage breakdown), over 1 and 4 emulated optane-p5800x and 4
# 980pro with the media in pinned host memory and a cache of about an eighth of the edge list;
# then the GPU test and compute-sanitizer memcheck on the kernels' small case.
#
# Stage on the build machine (after `cmake --build --preset default --target bfs cc bam-data
# graph_apps_gpu_test`):
#   scripts/gpu/graph-apps.sh --stage DIR
# Run on the GPU machine, from the repository root, one or more steps per call (each step fits
# the 10-minute command limit at SCALE <= 24; a step generates the graphs it needs, kept in WORK
# while the machine stays warm):
#   BIN=DIR OUT=out [SCALE=22] [STEPS="tests gen bfs-kron cc-kron bfs-urand cc-urand"]
#     [SOURCES=4] [VERIFY=1] [WORK=build/graph-work] [CACHE=bytes] [SETS="optane-p5800x:1 ..."]
#     scripts/gpu/graph-apps.sh
# Steps: tests, gen (both graphs), ALGO-KIND (bfs|cc on kron|urand, every storage set of SETS),
# ALGO-KIND-MODEL-xN (one storage set), sweep-cache and sweep-qp (paper Figures 10 and 11:
# configs/sweeps/graph-cache-size.json and graph-queue-pairs.json through scripts/sweep, on the
# Kronecker graph of scale SWEEP_SCALE, default 25, into $OUT/<sweep>/).
# CACHE: the cache's bytes (default: an eighth of the file, 64 MiB to 8 GiB: graph_sizes). The optane sets
# run every access mode (their processes give the Figure 7 breakdown); others run MODES_OTHER
# (default host-zero-copy,bam: the target and bam at that storage's bandwidth); MODES overrides
# the optane sets' list. EXTRA: more tool arguments (e.g. "--set graph.direction_optimizing=false"),
# TAG: a suffix for the reports' names.
# Logs, reports (one json per process: <algo>-<graph>-<model>-x<ssds>.json) and one CSV
# (graph-apps.csv) under $OUT; one "== step ... rc=N s" line per process on stdout. VERIFY=0
# skips the CPU reference (minutes per source at scale 27).
set -u
# graph_sizes FILE SSDS: the media per SSD and the cache, bytes, for a graph file over SSDS drives:
# the file's share (it is larger than the neighbour array) plus 64 MiB, whole MiB; an eighth of
# the file in whole MiB, between 64 MiB and 8 GiB. (`graph-apps.sh --sizes FILE SSDS` prints them:
# regression-points.sh's graph points take them from here.)
graph_sizes() {
  local bytes media cache
  bytes=$(stat -c %s "$1") || return 1
  media=$(( (bytes / $2 / 1048576 + 65) * 1048576 ))
  cache=$(( bytes / 8 / 1048576 ))
  [ "$cache" -lt 64 ] && cache=64
  [ "$cache" -gt 8192 ] && cache=8192
  echo "$media $(( cache * 1048576 ))"
}
# graph_gen KIND SCALE: bam-data's arguments for the graph graph_of names (the recipe of a
# WORK/KIND-sSCALE.csr: `graph-apps.sh --gen-args KIND SCALE` prints them for
# regression-points.sh, which makes its graphs in the same folder by default).
graph_gen() { echo "graph-gen $1 --scale $2 --edge-factor 16 --seed 1"; }
if [ "${1:-}" = --sizes ]; then
  graph_sizes "$2" "$3"
  exit
fi
if [ "${1:-}" = --gen-args ]; then
  graph_gen "$2" "$3"
  exit
fi
if [ "${1:-}" = --stage ]; then
  dir=$2 build=${BUILD:-build/default}
  mkdir -p "$dir"
  for t in tools/bfs/bfs tools/cc/cc tools/bam-data/bam-data tests/graph_apps/graph_apps_gpu_test; do
    [ -x "$build/$t" ] || { echo "not built: $build/$t"; exit 1; }
    strip -o "$dir/$(basename "$t")" "$build/$t"
  done
  exit 0
fi
: "${BIN:=$(dirname "$0")}" "${OUT:=out}" "${SCALE:=22}" "${SOURCES:=4}" "${VERIFY:=1}"
: "${WORK:=build/graph-work}" "${STEPS:=tests gen bfs-kron cc-kron bfs-urand cc-urand}"
: "${LIMIT:=540}" "${CACHE:=}" "${SWEEP_SCALE:=25}"
: "${SETS:=optane-p5800x:1 optane-p5800x:4 980pro:4}"
: "${MODES_OTHER:=host-zero-copy,bam}" "${MODES:=gpu-memory,host-zero-copy,uvm,bam-preloaded,bam}"
: "${EXTRA:=}" "${TAG:=}"
mkdir -p "$OUT" "$WORK"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current \
  --format=csv > "$OUT/nvidia-smi.csv" 2>&1
status=0

graph_of() { echo "$WORK/$1-s$SCALE.csr"; }

gen() {
  local kind=$1 f
  f=$(graph_of "$kind")
  [ -s "$f" ] && return 0
  local t0=$SECONDS
  # shellcheck disable=SC2046  # graph_gen's words, none with spaces
  timeout "$LIMIT" "$BIN/bam-data" $(graph_gen "$kind" "$SCALE") \
    --out "$f" > "$OUT/gen-$kind-s$SCALE.log" 2>&1
  local rc=$?
  echo "== gen $kind scale $SCALE rc=$rc $((SECONDS - t0)) s"
  cat "$OUT/gen-$kind-s$SCALE.log"
  [ $rc -eq 0 ] || { rm -f "$f"; status=1; }
  return $rc
}

# run ALGO KIND MODEL SSDS: every access mode in one process.
run() {
  local algo=$1 kind=$2 model=$3 ssds=$4 f media cache extra=()
  f=$(graph_of "$kind")
  read -r media cache <<< "$(graph_sizes "$f" "$ssds")"
  [ -n "$CACHE" ] && cache=$CACHE
  local modes=$MODES
  [ "$model" = optane-p5800x ] || modes=$MODES_OTHER
  [ "$algo" = bfs ] && extra+=(--sources "$SOURCES")
  [ "$VERIFY" = 1 ] && extra+=(--verify)
  # shellcheck disable=SC2206
  extra+=($EXTRA)
  local name="$algo-$kind-s$SCALE-$model-x$ssds$TAG"
  local t0=$SECONDS
  timeout "$LIMIT" "$BIN/$algo" --graph "$f" --backend emulated --ssds "$ssds" --model "$model" \
    --pairs 128 --depth 1024 --set storage.media.kind=host \
    --set storage.media.size_bytes="$media" --set cache.line_size=4096 \
    --set cache.capacity="$cache" \
    --sweep graph.access="$modes" "${extra[@]}" \
    --report "$OUT/$name.json" --csv "$OUT/graph-apps.csv" > "$OUT/$name.log" 2>&1
  local rc=$?
  echo "== $name rc=$rc $((SECONDS - t0)) s (media $media B/SSD, cache $cache B)"
  grep -E "^  (bfs|cc|storage|end to end|breakdown|kernel|verify)" "$OUT/$name.log"
  grep -E "run failed|I/O FAILED|invalid" "$OUT/$name.log"
  [ $rc -eq 0 ] || status=1
}

tests() {
  local t0=$SECONDS
  timeout 300 "$BIN/graph_apps_gpu_test" > "$OUT/graph_apps_gpu_test.log" 2>&1
  echo "== graph_apps_gpu_test rc=$? $((SECONDS - t0)) s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|Which is" "$OUT/graph_apps_gpu_test.log" | head -20
  t0=$SECONDS
  local cs
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  timeout 300 "$cs" --tool memcheck --error-exitcode 99 "$BIN/graph_apps_gpu_test" \
    --gtest_filter='GraphAppsGpuSanitizer.*' > "$OUT/sanitize-memcheck-graph_apps.log" 2>&1
  local rc=$?
  echo "== compute-sanitizer memcheck GraphAppsGpuSanitizer rc=$rc $((SECONDS - t0)) s"
  grep -E "ERROR SUMMARY|\[  (PASSED|FAILED) " "$OUT/sanitize-memcheck-graph_apps.log"
  [ $rc -eq 0 ] || status=1
}

for step in $STEPS; do
  case $step in
    tests) tests ;;
    gen) gen kron && gen urand ;;
    bfs-kron | cc-kron | bfs-urand | cc-urand)
      algo=${step%-*} kind=${step#*-}
      gen "$kind" || continue
      for set in $SETS; do run "$algo" "$kind" "${set%:*}" "${set#*:}"; done
      ;;
    bfs-*-x* | cc-*-x*)  # e.g. bfs-kron-optane-p5800x-x4
      IFS=- read -r algo kind rest <<< "$step"
      model=${rest%-x*} ssds=${rest##*-x}
      gen "$kind" || continue
      run "$algo" "$kind" "$model" "$ssds"
      ;;
    sweep-cache | sweep-qp)
      spec=configs/sweeps/graph-cache-size.json
      [ "$step" = sweep-qp ] && spec=configs/sweeps/graph-queue-pairs.json
      name=$(basename "$spec" .json)
      SCALE=$SWEEP_SCALE gen kron || continue
      t0=$SECONDS
      timeout "$LIMIT" /usr/bin/python3 scripts/sweep "$spec" --bin "$BIN" --out "$OUT/$name" \
        --set graph.file="$WORK/kron-s$SWEEP_SCALE.csr" > "$OUT/$name.log" 2>&1
      rc=$?
      echo "== $name rc=$rc $((SECONDS - t0)) s"
      tail -5 "$OUT/$name.log"
      [ $rc -eq 0 ] || status=1
      ;;
    *) echo "unknown step $step (tests gen bfs-kron cc-kron bfs-urand cc-urand" \
         "ALGO-KIND-MODEL-xN sweep-cache sweep-qp)"; exit 2 ;;
  esac
done
exit $status
