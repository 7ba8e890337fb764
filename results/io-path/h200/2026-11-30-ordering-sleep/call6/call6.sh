# Call 6 (device tool, one H200), from the repository root: call 2's timed runs at 10 GiB used
# only the queues of the resident warps (gpu.queue_mapping warp: queue (w / 10) % 128 for warps
# w < about 930, so queues 0-92 of each SSD), the counted ones every queue. With
# gpu.queue_mapping thread (queue (t / 10) % 128: every queue from 1,280 threads on) both use every
# queue: V at the 10 GiB point, counted and timed (1.5 s), both protocols, 2 rounds (the warp
# mapping beside in round 1), one process each (median of 3 runs, ceilings in the same process).
set -u
T0=$SECONDS
cd build/carry && tar xJf v.tar.xz && cd ../..
export CUDA_MODULE_LOADING=EAGER
mkdir -p $OUT/r
run() {  # name, then the arguments
  local name=$1; shift
  timeout 300 build/carry/V/nvm-block-bench "$@" --report $OUT/r/$name.json > $OUT/r/$name.txt 2>&1
  echo "== $name rc=$? $((SECONDS-T0)) s: $(grep -E 'repeat:' $OUT/r/$name.txt | head -1)" >> $OUT/log.txt
}
for round in 1 2; do
  for proto in hardware emulator; do
    a=$(PROTOCOL=$proto bash scripts/gpu/io-path-table.sh --args optane10_1g)
    timed=$(echo "$a" | sed -E 's/--ios [0-9]+/--set workload.ios=0 --set workload.duration_s=1.5/')
    maps="thread warp"
    [ $round = 2 ] && maps=thread
    for map in $maps; do
      # shellcheck disable=SC2086
      run ${proto}_${map}_count_$round $a --set gpu.queue_mapping=$map
      # shellcheck disable=SC2086
      run ${proto}_${map}_timed_$round $timed --set gpu.queue_mapping=$map
    done
  done
done
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c6.tgz r log.txt time.txt && rm -rf r
