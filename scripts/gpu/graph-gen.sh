#!/bin/bash
# The graph generator at the paper's size on the GPU machine's CPUs (no GPU used): bam-data
# graph-gen kron and urand at SCALE (default 27: 134 M vertices, ~4.2 G directed edges), all
# cores, the .csr written to WORK and deleted after; wall time, CPU time and peak memory
# (/usr/bin/time -v) in $OUT/graph-gen-<kind>-<scale>.txt, one summary line each on stdout.
# The same seed twice with different thread counts must give the same checksum: checked at
# CHECK_SCALE (default 22) with 1 and all threads.
# Usage: BIN=dir-with-bam-data OUT=out [SCALE=27] [WORK=/tmp] scripts/gpu/graph-gen.sh
set -u
: "${BIN:?folder holding bam-data}" "${OUT:=out}" "${SCALE:=27}" "${WORK:=/tmp}"
: "${CHECK_SCALE:=22}"
mkdir -p "$OUT"
nproc > "$OUT/nproc.txt"; free -g >> "$OUT/nproc.txt"
status=0
sum_of() { grep -o 'checksum xxh64 [0-9a-f]*' "$1" | awk '{print $3}'; }
for kind in kron urand; do
  log=$OUT/graph-gen-$kind-$SCALE.txt
  /usr/bin/time -v "$BIN/bam-data" graph-gen "$kind" --scale "$SCALE" --edge-factor 16 --seed 1 \
    --out "$WORK/$kind$SCALE.csr" > "$log" 2>&1 || status=1
  rm -f "$WORK/$kind$SCALE.csr"
  echo "$kind scale $SCALE: $(grep -E 'generate .* write' "$log" | sed 's/.*; //')," \
    "$(grep -E 'Elapsed|Maximum resident' "$log" | sed 's/^\s*//' | tr '\n' ' ')"
  a=$OUT/check-$kind-1.txt b=$OUT/check-$kind-all.txt
  "$BIN/bam-data" graph-gen "$kind" --scale "$CHECK_SCALE" --threads 1 --out "$WORK/c1.csr" > "$a" 2>&1
  "$BIN/bam-data" graph-gen "$kind" --scale "$CHECK_SCALE" --out "$WORK/c2.csr" > "$b" 2>&1
  if cmp -s "$WORK/c1.csr" "$WORK/c2.csr"; then
    echo "$kind scale $CHECK_SCALE: 1 thread and $(nproc) threads byte-identical ($(sum_of "$a"))"
  else
    echo "$kind scale $CHECK_SCALE: 1 thread and $(nproc) threads DIFFER"; status=1
  fi
  rm -f "$WORK/c1.csr" "$WORK/c2.csr"
done
exit $status
