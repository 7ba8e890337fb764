#!/bin/bash
# Call 2 (as run): ncu's L2 and DRAM counters over the client kernel's range (range replay of
# the application; scripts/gpu/probes/profiler-range.patch) for the 10 GiB point, hardware
# protocol, one run, no ceilings, at depth 1024 and 128; the applications against ba3b1b4's
# (call 1 named the old folder wrongly); the engine on the first SMs and in 32 x 8 blocks at the
# 10 GiB point with e1ff784 (rate and tail). Each part tarred as it ends.
set -u
T0=$SECONDS
for t in w1 a2; do tar xJf build/carry/$t.tar.xz -C /tmp; done
B=/tmp/w1
O=$OUT/c2
mkdir -p "$O/ncu"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
el() { echo "== $1 at $((SECONDS - T0)) s"; }

ncu --query-metrics --chip gh100 > "$O/ncu/metrics.txt" 2>&1
want="dram__bytes_read.sum dram__bytes_write.sum lts__t_sectors_lookup_hit.sum
lts__t_sectors_lookup_miss.sum lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum lts__t_sectors_srcunit_tex_op_atom_lookup_miss.sum
lts__t_sectors_srcunit_tex_op_red_lookup_miss.sum lts__t_sectors_srcunit_tex_op_read.sum
lts__t_sectors_srcunit_tex_op_write.sum lts__t_sectors_srcunit_tex_op_atom.sum
lts__t_sectors_srcunit_tex_aperture_sysmem_op_read.sum"
M=""
for m in $want; do
  base=${m%.sum}
  if grep -q "^$base " "$O/ncu/metrics.txt"; then M="$M,$m"; else echo "no metric $base"; fi
done
M=${M#,}
[ -z "$M" ] && M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum
echo "metrics: $M"
run_ncu() {  # name depth metrics limit
  local a
  a=$(PROTOCOL=hardware bash scripts/gpu/io-path-table.sh --args optane10_1g)
  a=${a/--repeat 3/--repeat 1}; a=${a/--measure-ceilings/}
  read -r -a aa <<< "$a --set queues.depth=$2"
  BAM_PROBE_PROFILE=1 timeout "$4" ncu --replay-mode app-range --clock-control none \
    --metrics "$3" "$B/prof/nvm-block-bench" "${aa[@]}" \
    --report "$O/ncu/$1.json" > "$O/ncu/$1.txt" 2>&1
  echo "== ncu $1 rc=$? at $((SECONDS - T0)) s"; grep -E "ERROR|WARN|sum|pct|repeat:" "$O/ncu/$1.txt" | head -30
}
run_ncu d1024-min 1024 dram__bytes_read.sum,lts__t_sector_hit_rate.pct 90
(cd "$OUT" && tar czf ncu.tgz c2/ncu)
if grep -q "dram__bytes_read" "$O/ncu/d1024-min.txt"; then
  run_ncu d1024 1024 "$M" 150
  run_ncu d128 128 "$M" 150
fi
(cd "$OUT" && tar czf ncu.tgz c2/ncu)
el ncu

# The applications against ba3b1b4's (a2.tar.xz's new/), 1 round.
OLD=/tmp/new NEW=$B/head OUT=$O/apps ROUNDS=1 TAXI_ROWS=50000000 GRAPH_SCALE=23 \
  DATA=/tmp/appdata POINTS="taxi_q0q5 bfs_kron cc_kron" \
  timeout 150 bash scripts/gpu/regression-points.sh > "$O/apps.txt" 2>&1
grep '^==' "$O/apps.txt"
grep -h -E "verify|FAILED|run failed" "$O"/apps/*.txt | sort | uniq -c
(cd "$OUT" && tar czf apps.tgz c2/apps c2/apps.txt c2/nvidia-smi.txt)
el apps

# The engine's placement and shape at the 10 GiB point, head, both protocols, one process each.
point() {  # name protocol extra-args
  local left=$((575 - (SECONDS - T0)))
  [ $left -lt 25 ] && { echo "$1 skipped"; return; }
  read -r -a a <<< "$(PROTOCOL=$2 bash scripts/gpu/io-path-table.sh --args optane10_1g) $3"
  timeout $left "$B/head/nvm-block-bench" "${a[@]}" --report "$O/shape/$1.json" > "$O/shape/$1.txt" 2>&1
  echo "== $1 rc=$?: $(grep -m1 'repeat:' "$O/shape/$1.txt")"
}
mkdir -p "$O/shape"
for p in hardware emulator; do
  point $p-first-sms $p "--set gpu.engine_placement=first-sms"
  point $p-default $p ""
  point $p-32x8 $p "--set gpu.engine_blocks=32 --set gpu.engine_warps_per_block=8"
done
(cd "$OUT" && tar czf shape.tgz c2/shape)
el all
