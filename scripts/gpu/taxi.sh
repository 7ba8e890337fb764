#!/bin/bash
# Issue 16 on a GPU machine (BaM paper Figure 12, dissertation Figure 9.7): makes the synthetic
# NYC taxi table on this machine (bam-data taxi-gen, ROWS rows, default 200 M: 1.6 GB per column),
# then one taxi-query process per SSD count (1, 2, 4 emulated optane-p5800x, media in pinned
# host memory; tiled reads host-emulated SSDs of the same model) runs Q0..Q5 at D = 30 and 20
# miles, bam and tiled in one process, every result verified against the long-double reference,
# at 4 KiB cache lines and, for Q5, 512 B and 1 KiB; then tiled from the page cache (the
# baseline's best case) once. Reports, CSV rows and logs under $OUT
# (taxi_<n>ssd.{json,csv,txt}, gen.txt); a summary table in $OUT/summary.txt.
# Binaries: bam-data and taxi-query in $BIN (scripts/gpu/run-gpu-tests.sh --stage DIR puts them
# there; default: this script's folder, else .).
# Usage: BIN=dir OUT=out [ROWS=200000000] [SSDS="1 2 4"] [TABLE=/tmp/bamkit-taxi-200m]
#        [LIMIT=560] [BACKEND=emulated] scripts/gpu/taxi.sh   (BACKEND=host: the same flow on
#        host-emulated SSDs and CPU threads, a dry run anywhere)
# Time on an H100: the table ~1 min (disk), each SSD count 3-6 min (LIMIT seconds at most).
set -u
# Bytes of media per SSD for ROWS rows over N SSDs: the 6 query columns (48 bytes a row), an
# eighth more for stripe rounding, plus 64 MiB, in whole 4 KiB blocks. (`taxi.sh --media ROWS N`
# prints it: regression-points.sh's taxi point takes it from here.)
media_per_ssd() {
  echo $(( (($1 * 48 * 9 / 8) / $2 + (64 << 20) + 4095) / 4096 * 4096 ))
}
# taxi_gen ROWS: bam-data's arguments for the table (`taxi.sh --gen-args ROWS` prints them for
# regression-points.sh).
taxi_gen() { echo "taxi-gen --rows $1 --seed 1"; }
if [ "${1:-}" = --media ]; then
  media_per_ssd "$2" "$3"
  exit
fi
if [ "${1:-}" = --gen-args ]; then
  taxi_gen "$2"
  exit
fi
: "${OUT:=out}" "${ROWS:=200000000}" "${SSDS:=1 2 4}" "${TABLE:=/tmp/bamkit-taxi-200m}"
: "${LIMIT:=560}" "${BACKEND:=emulated}"
if [ -z "${BIN:-}" ]; then
  if [ -x "$(dirname "$0")/taxi-query" ]; then BIN="$(dirname "$0")"; else BIN=.; fi
fi
mkdir -p "$OUT"
for t in bam-data taxi-query; do
  [ -x "$BIN/$t" ] || { echo "no $t in $BIN (set BIN=folder)"; exit 1; }
done
export CUDA_MODULE_LOADING=EAGER
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current \
  --format=csv > "$OUT/nvidia-smi.csv" 2>&1
cat "$OUT/nvidia-smi.csv"
free -g | tee "$OUT/free.txt"
df -h "$(dirname "$TABLE")" | tee "$OUT/df.txt"

# The table, made here unless one of ROWS rows is there already.
if [ "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['rows'])" \
        "$TABLE/table.json" 2>/dev/null)" != "$ROWS" ]; then
  t0=$SECONDS
  # shellcheck disable=SC2046  # taxi_gen's words, none with spaces
  "$BIN/bam-data" $(taxi_gen "$ROWS") --out "$TABLE" > "$OUT/gen.txt" 2>&1
  echo "== gen rc=$? $((SECONDS - t0)) s"
  cat "$OUT/gen.txt"
fi
cp "$TABLE/table.json" "$OUT/table.json"

per_ssd() { media_per_ssd "$ROWS" "$1"; }

status=0
for n in $SSDS; do
  name=taxi_${n}ssd
  t0=$SECONDS
  timeout "$LIMIT" "$BIN/taxi-query" --backend "$BACKEND" --model optane-p5800x --ssds "$n" \
    --set storage.media.kind=host --set "storage.media.size_bytes=$(per_ssd "$n")" \
    --pairs 128 --depth 1024 --threads 16 --set cache.capacity=4294967296 \
    --set taxi.row_group_rows=4194304 --data "$TABLE" --verify \
    --sweep cache.line_size=4096 --sweep taxi.min_distance=30,20 \
    --sweep taxi.queries=q0,q1,q2,q3,q4,q5 \
    --report "$OUT/$name.json" --csv "$OUT/$name.csv" > "$OUT/$name.txt" 2>&1
  rc=$?
  echo "== $name rc=$rc $((SECONDS - t0)) s"
  [ $rc -eq 0 ] || status=1
  grep -E "taxi: (bam|tiled|verify)|failed|invalid|rror" "$OUT/$name.txt" | tail -n 80
  name=taxi_${n}ssd_lines
  t0=$SECONDS
  timeout "$LIMIT" "$BIN/taxi-query" --backend "$BACKEND" --model optane-p5800x --ssds "$n" \
    --set storage.media.kind=host --set "storage.media.size_bytes=$(per_ssd "$n")" \
    --pairs 128 --depth 1024 --threads 16 --set cache.capacity=4294967296 \
    --set taxi.row_group_rows=4194304 --data "$TABLE" --verify --query q5 --impl bam \
    --sweep cache.line_size=512,1024 --sweep taxi.min_distance=30,20 \
    --report "$OUT/$name.json" --csv "$OUT/$name.csv" > "$OUT/$name.txt" 2>&1
  rc=$?
  echo "== $name rc=$rc $((SECONDS - t0)) s"
  [ $rc -eq 0 ] || status=1
  grep -E "taxi: (bam|tiled|verify)|failed|invalid|rror" "$OUT/$name.txt" | tail -n 20
done

# The baseline's best case: tiled from the page cache (the table's files), once.
name=taxi_page_cache
t0=$SECONDS
timeout "$LIMIT" "$BIN/taxi-query" --backend "$BACKEND" --model optane-p5800x --ssds 1 \
  --set storage.media.kind=host --set "storage.media.size_bytes=$(per_ssd 1)" \
  --pairs 128 --depth 1024 --threads 16 --set taxi.row_group_rows=4194304 --data "$TABLE" \
  --verify --impl tiled --set taxi.tiled_source=page_cache \
  --sweep taxi.min_distance=30,20 --sweep taxi.queries=q0,q1,q2,q3,q4,q5 \
  --report "$OUT/$name.json" --csv "$OUT/$name.csv" > "$OUT/$name.txt" 2>&1
rc=$?
echo "== $name rc=$rc $((SECONDS - t0)) s"
[ $rc -eq 0 ] || status=1
grep -E "taxi: (tiled|verify)|failed|invalid|rror" "$OUT/$name.txt" | tail -n 30

# One line per point: SSDs, D, query, line size, each impl's seconds and amplification.
python3 - "$OUT" > "$OUT/summary.txt" <<'PY'
import csv, glob, os, sys
out = sys.argv[1]
print("ssds  D   query line  bam_s     tiled_s   speedup  bam_amp  tiled_amp  file")
for f in sorted(glob.glob(os.path.join(out, "taxi_*.csv"))):
    for r in csv.DictReader(open(f)):
        b, t = r.get("bam_seconds", ""), r.get("tiled_seconds", "")
        sp = f"{float(t) / float(b):.2f}" if b and t and float(b) > 0 else "-"
        print(f"{r['ssd_count']:>4} {r['min_distance']:>3} {r['queries']:>5} "
              f"{r['line_size']:>5} {b or '-':>9} {t or '-':>9} {sp:>7}  "
              f"{r.get('bam_amplification', '-'):>7}  {r.get('tiled_amplification', '-'):>9}  "
              f"{os.path.basename(f)}")
PY
cat "$OUT/summary.txt"
exit $status
