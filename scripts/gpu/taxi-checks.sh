#!/bin/bash
# Session 4's review fixes (issue 16 follow-ups) on a GPU machine, through the GPU backends
# (storage.backend emulated): taxi-query's backend (one class with the host's since this round)
# answers Q0..Q5 for bam and tiled, verified; a query column whose file differs from its
# manifest checksum is refused before anything runs (exit 2, the column and file named); with
# injected read errors the report counts failed line reads and failed element accesses apart
# (on the GPU a warp's lanes share a line, so accesses outnumber reads; each counter is checked
# against the cache's own statistics); bfs and cc (their backend now shared with the host's)
# run bam on a small graph, verified. One "== name rc=N s" line per step and a "check:" line per
# expectation (PASS/FAIL); logs and reports under $OUT.
#
# Stage on the build machine (after `cmake --build --preset default --target taxi-query bam-data
# bfs cc`):  scripts/gpu/taxi-checks.sh --stage DIR
# Run on the GPU machine:  BIN=DIR OUT=out [ROWS=4000000] [BACKEND=emulated]
#   scripts/gpu/taxi-checks.sh   (BACKEND=host: the same flow on CPU threads, a dry run anywhere)
# Time on an H100: about 1 minute. Exit status 1 when a check failed.
set -u
if [ "${1:-}" = --stage ]; then
  dir=$2 build=${BUILD:-build/default}
  mkdir -p "$dir"
  for t in tools/taxi-query/taxi-query tools/bam-data/bam-data tools/bfs/bfs tools/cc/cc; do
    [ -x "$build/$t" ] || { echo "not built: $build/$t"; exit 1; }
    strip -o "$dir/$(basename "$t")" "$build/$t"
  done
  exit 0
fi
: "${BIN:=$(dirname "$0")}" "${OUT:=out}" "${ROWS:=4000000}" "${BACKEND:=emulated}"
: "${WORK:=/tmp/bamkit-taxi-checks}"
mkdir -p "$OUT" "$WORK"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/nvidia-smi.csv" 2>&1
status=0
check() {  # check WHAT CONDITION...
  local what=$1
  shift
  if "$@"; then echo "check: PASS $what"; else echo "check: FAIL $what"; status=1; fi
}
step() {  # step NAME CMD...: runs CMD with its output in $OUT/NAME.txt; sets rc
  local name=$1 t0=$SECONDS
  shift
  timeout 300 "$@" > "$OUT/$name.txt" 2>&1
  rc=$?
  echo "== $name rc=$rc $((SECONDS - t0)) s"
}
field() {  # field REPORT PYTHON-EXPRESSION-ON-j
  python3 -c "import json, sys; j = json.load(open(sys.argv[1]))['bamkit']; print($2)" "$1"
}

table=$WORK/t
rm -rf "$table" "$WORK/bad"
step gen "$BIN/bam-data" taxi-gen --rows "$ROWS" --seed 3 --out "$table"
media=$(( (ROWS * 48 * 9 / 8 + (64 << 20)) / 4096 * 4096 ))
q=("$BIN/taxi-query" --backend "$BACKEND" --model optane-p5800x --ssds 1
   --set storage.media.kind=host --set "storage.media.size_bytes=$media" --pairs 16 --threads 8
   --set cache.capacity=268435456 --set taxi.row_group_rows=1048576 --min-distance 20)

# Both implementations, every query verified.
step query "${q[@]}" --data "$table" --verify --report "$OUT/query.json"
check "query: exit 0" test "$rc" = 0
check "query: bam and tiled bit-identical" \
  test "$(field "$OUT/query.json" "j['stats']['taxi']['impls_bit_identical']")" = True
check "query: checksums verified (checksum_seconds > 0)" \
  test "$(field "$OUT/query.json" "j['stats']['taxi']['checksum_seconds'] > 0")" = True

# Injected read errors (the placement writes are not faulted on the GPU engine's media path; on
# BACKEND=host the seed decides whether they pass).
step faults "${q[@]}" --data "$table" --impl bam --set storage.faults.error_fraction=0.001 \
  --set storage.faults.seed=12345 --report "$OUT/faults.json"
check "faults: exit 3 (I/O errors)" test "$rc" = 3
if [ -f "$OUT/faults.json" ]; then
  e='j["stats"]["taxi"]["impls"][0]'
  reads=$(field "$OUT/faults.json" "$e['failed_reads']")
  accesses=$(field "$OUT/faults.json" "$e['failed_accesses']")
  echo "faults: $reads failed line reads, $accesses failed element accesses," \
    "$(field "$OUT/faults.json" "$e['cache']['reads']") line reads"
  check "faults: failed_reads = the cache's io_errors = the run's errors" test \
    "$reads:$reads" = "$(field "$OUT/faults.json" "$e['cache']['io_errors']"):$(field \
    "$OUT/faults.json" "j['io_errors']['errors']")"
  check "faults: failed_accesses = the cache's failed_accesses" \
    test "$accesses" = "$(field "$OUT/faults.json" "$e['cache']['failed_accesses']")"
  check "faults: some reads failed" test "$reads" -gt 0
fi
grep -E "taxi: bam:|I/O FAILED" "$OUT/faults.txt"

# A query column changed after the table was written.
cp -r "$table" "$WORK/bad"
printf '\x55' | dd of="$WORK/bad/tolls_amount.f64" bs=1 seek=4096 conv=notrunc 2> /dev/null
step corrupt "${q[@]}" --data "$WORK/bad"
check "corrupt: exit 2" test "$rc" = 2
check "corrupt: names the column and its file" \
  grep -q "$WORK/bad/tolls_amount.f64: column tolls_amount: checksum" "$OUT/corrupt.txt"
grep -E "invalid" "$OUT/corrupt.txt"

# bfs and cc through the shared graph backend, bam, verified.
step graph-gen "$BIN/bam-data" graph-gen kron --scale 16 --seed 1 --out "$WORK/k16.csr"
for algo in bfs cc; do
  step "$algo" "$BIN/$algo" --graph "$WORK/k16.csr" --backend "$BACKEND" --ssds 2 \
    --set storage.media.size_bytes=67108864 --set cache.capacity=4194304 --verify \
    --set graph.access=bam --report "$OUT/$algo.json"
  check "$algo: exit 0 (verified)" test "$rc" = 0
done
exit $status
