#!/bin/bash
# Call 1 (as run): e1ff784 (head) against two engine variants that post completions with the
# L2 evict-first policy (e5: DW0-2; e5b: all four words; /tmp patches, kept in this folder), the
# 10 GiB point at depth 128 with head, Figure 4's ceilings point resumed with 8e52572's binary,
# the applications against ba3b1b4's, then ncu's counters over the client kernel (range replay,
# scripts/gpu/probes/profiler-range.patch) at depth 1024 and 128. Each part tarred as it ends.
set -u
T0=$SECONDS
for t in w1 a2 v2; do tar xJf build/carry/$t.tar.xz -C /tmp; done
B=/tmp/w1
O=$OUT/c1
mkdir -p "$O"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
el() { echo "== $1 at $((SECONDS - T0)) s"; }

# Figure 4's ceilings point, the session of 8e52572 resumed.
mkdir -p "$OUT/fig4" && tar xf build/carry/fig4-8e52572.tar -C "$OUT/fig4"
timeout 60 /usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin /tmp/v2 \
  --out "$OUT/fig4" --gpu h200 --session 2026-12-01-8e52572-x3 > "$O/fig4.log" 2>&1
echo "fig4 rc=$?"; tail -3 "$O/fig4.log"
(cd "$OUT" && tar czf fig4.tgz fig4 && rm -rf fig4)
el fig4

# The engine variants against head, hardware protocol.
OLD=$B/head NEW=$B/e5b ROUNDS=2 OUT=$O/e5b TABLE_PROTOCOL=hardware \
  POINTS="table_optane10_1g table_ideal_512_4g f4_512_1024" \
  timeout 200 scripts/gpu/regression-points.sh > "$O/e5b.txt" 2>&1
grep '^==' "$O/e5b.txt"; el e5b
OLD=$B/head NEW=$B/e5 ROUNDS=1 OUT=$O/e5 TABLE_PROTOCOL=hardware \
  POINTS="table_optane10_1g table_ideal_512_4g" \
  timeout 100 scripts/gpu/regression-points.sh > "$O/e5.txt" 2>&1
grep '^==' "$O/e5.txt"; el e5
(cd "$OUT" && tar czf ab.tgz c1/e5b c1/e5b.txt c1/e5 c1/e5.txt c1/nvidia-smi.txt)

# Depth 128 against 1024 at head, both protocols (one process each).
point() {  # name protocol extra-args binary-folder
  read -r -a a <<< "$(PROTOCOL=$2 bash scripts/gpu/io-path-table.sh --args optane10_1g) $3"
  timeout 60 "$4/nvm-block-bench" "${a[@]}" --report "$O/depth/$1.json" > "$O/depth/$1.txt" 2>&1
  echo "== $1 rc=$?: $(grep -m1 'repeat:' "$O/depth/$1.txt")"
}
mkdir -p "$O/depth"
for p in hardware emulator; do
  point $p-d128 $p "--set queues.depth=128" $B/head
  point $p-d1024 $p "" $B/head
done
(cd "$OUT" && tar czf depth.tgz c1/depth)
el depth

# The applications against ba3b1b4's (a2/new), 1 round.
OLD=/tmp/a2/new NEW=$B/head OUT=$O/apps ROUNDS=1 TAXI_ROWS=50000000 GRAPH_SCALE=23 \
  DATA=/tmp/appdata POINTS="taxi_q0q5 bfs_kron cc_kron" \
  timeout 150 bash scripts/gpu/regression-points.sh > "$O/apps.txt" 2>&1
grep '^==' "$O/apps.txt"
grep -h -E "verify|FAILED|run failed" "$O"/apps/*.txt | sort | uniq -c
(cd "$OUT" && tar czf apps.tgz c1/apps c1/apps.txt)
el apps

# ncu over the client kernel's range, depth 1024 and 128, hardware protocol, one run, no ceilings.
mkdir -p "$O/ncu"
which ncu > "$O/ncu/which.txt" 2>&1
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum,lts__t_sector_hit_rate.pct
for d in 1024 128; do
  left=$((570 - (SECONDS - T0)))
  [ $left -lt 40 ] && { echo "ncu d$d skipped: $left s left"; continue; }
  a=$(PROTOCOL=hardware bash scripts/gpu/io-path-table.sh --args optane10_1g)
  a=${a/--repeat 3/--repeat 1}; a=${a/--measure-ceilings/}
  read -r -a aa <<< "$a --set queues.depth=$d"
  BAM_PROBE_PROFILE=1 timeout $((left / 2)) ncu --replay-mode app-range --profile-from-start off \
    --clock-control none --metrics $M --csv "$B/prof/nvm-block-bench" "${aa[@]}" \
    --report "$O/ncu/d$d.json" > "$O/ncu/d$d.txt" 2>&1
  echo "== ncu d$d rc=$?"; tail -12 "$O/ncu/d$d.txt"
  (cd "$OUT" && tar czf ncu.tgz c1/ncu)
done
el all
