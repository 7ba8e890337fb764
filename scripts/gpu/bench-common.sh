# Sourced by scripts/gpu/nbb-common.sh with TOOL (the binary's name) and SUMMARY (an
# egrep of the summary lines to show) set: finds $TOOL in $BIN (default: the calling script's
# folder when the binary is there, else .), writes every report, CSV and log under $OUT.
set -u
: "${OUT:=out}"
if [ -z "${BIN:-}" ]; then
  if [ -x "$(dirname "$0")/$TOOL" ]; then BIN="$(dirname "$0")"; else BIN=.; fi
fi
EXE="$BIN/$TOOL"
mkdir -p "$OUT"
[ -x "$EXE" ] || { echo "no $TOOL in $BIN (set BIN=folder)"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current,clocks.sm,clocks.mem \
  --format=csv > "$OUT/nvidia-smi.csv" 2>&1
cat "$OUT/nvidia-smi.csv"
export CUDA_MODULE_LOADING=EAGER

# run NAME SECONDS ARGS...: one $TOOL process (a sweep is one process), its fio json+ report in
# $OUT/NAME.json, CSV rows in $OUT/NAME.csv, stdout+stderr in $OUT/NAME.txt.
run() {
  local name=$1 limit=$2
  shift 2
  local t0=$SECONDS
  timeout "$limit" "$EXE" "$@" --report "$OUT/$name.json" --csv "$OUT/$name.csv" \
    > "$OUT/$name.txt" 2>&1
  local rc=$?
  echo "== $name rc=$rc $((SECONDS - t0)) s"
  grep -E "$SUMMARY|ERROR|invalid|failed" "$OUT/$name.txt" | tail -n 60
}
