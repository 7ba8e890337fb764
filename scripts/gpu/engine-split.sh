#!/bin/bash
# The emulated drives' engine's SM share against the application's (issue 19's split;
# docs/gpu-engine.md, "The engine's SM share against the application's"): regression-points.sh's
# points run by one build with the engine as each of SHAPES, two shapes a call of it, alternated
# (the first of a pair before the second): a shape is `auto` (the automatic engine, 16 x 16 where
# the block scheduler puts it: an application's default; gpu.engine_placement scheduler, given, as
# nvm-block-bench's default over 2 GiB of pinned media is the even engine since 6eeb6b4) or N (N
# blocks of WARPS warps, block b on SM b: gpu.engine_placement first-sms). SHAPES must hold `auto` (the table compares with it) and no block count twice.
# Shapes are paired in order, (1st, 2nd), (3rd, 4th), ...; an odd last one is paired with `auto`
# again. The table_ points run in each of PROTOCOLS; the others (the applications', which run in
# their own default protocol, hardware) in the first only, their reports in its folders. One
# process a shape, point and protocol; each pair's reports in $OUT/<protocol>-<first>-<second>/ as
# regression-points.sh names them, its log beside them. ARGS: extra arguments for every process
# (regression-points.sh's ARGS). scripts/gpu/engine-split.py OUT makes the table.
# Usage: BIN=dir OUT=out [SHAPES="auto 16 32 48 64 80 96"] [WARPS=4]
#        [POINTS="table_optane10_1g taxi_q0q5 bfs_kron cc_kron"] [PROTOCOLS="hardware emulator"]
#        [TAXI_ROWS=...] [GRAPH_SCALE=...] [DATA=...] scripts/gpu/engine-split.sh
# (BIN holds nvm-block-bench, taxi-query, bfs, cc and bam-data, as run-gpu-tests.sh --stage leaves
# them; about 10 minutes on an H200 with the defaults.)
set -u
here=$(dirname "$0")
: "${BIN:?folder of the build}" "${OUT:=out}"
: "${SHAPES:=auto 16 32 48 64 80 96}" "${WARPS:=4}"
: "${POINTS:=table_optane10_1g taxi_q0q5 bfs_kron cc_kron}" "${PROTOCOLS:=hardware emulator}"
shape_args() {
  [ "$1" = auto ] && { echo "--set gpu.engine_placement=scheduler"; return 0; }
  [[ $1 =~ ^[1-9][0-9]*$ ]] || { echo "engine-split: shape '$1' is not auto or a block count" >&2
    return 1; }
  echo "--set gpu.engine_placement=first-sms --set gpu.engine_blocks=$1" \
    "--set gpu.engine_warps_per_block=$WARPS"
}
read -r -a shapes <<< "$SHAPES"
for s in "${shapes[@]}"; do shape_args "$s" > /dev/null || exit 2; done
[[ " ${shapes[*]} " == *" auto "* ]] ||
  { echo "engine-split: SHAPES has no auto, which the table compares with" >&2; exit 2; }
dup=$(printf '%s\n' "${shapes[@]}" | grep -v '^auto$' | sort | uniq -d | head -n 1)
[ -z "$dup" ] || { echo "engine-split: shape $dup is in SHAPES twice" >&2; exit 2; }
[ $((${#shapes[@]} % 2)) -eq 1 ] && shapes+=(auto)
read -r -a protocols <<< "$PROTOCOLS"
mkdir -p "$OUT"
status=0
for proto in "${protocols[@]}"; do
  points=""
  for p in $POINTS; do
    [[ $p == table_* || $proto == "${protocols[0]}" ]] && points="$points $p"
  done
  [ -n "$points" ] || continue
  for ((i = 0; i < ${#shapes[@]}; i += 2)); do
    a=${shapes[i]} b=${shapes[i + 1]}
    dir=$OUT/$proto-$a-$b
    OLD=$BIN NEW=$BIN OUT=$dir ROUNDS=1 OLD_ARGS="$(shape_args "$a")" NEW_ARGS="$(shape_args "$b")" \
      ARGS="${ARGS:-}" TABLE_PROTOCOL=$proto POINTS="$points" bash "$here/regression-points.sh" \
      > "$dir.txt" 2>&1
    rc=$?
    echo "== $proto $a $b rc=$rc"
    [ $rc -eq 0 ] || status=1
  done
done
exit $status
