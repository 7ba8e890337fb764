# Call 2 (device tool, one H200), from the repository root: V (call 1's build). Issue 19's two
# points that hold their goals (10 x optane-p5800x with 1 GiB of media each, and ideal 512 B over
# 4 GiB) keep only a third to a half of the application's resident threads in a read (rate x mean
# latency / resident threads, call 6 of -fetch-covers). Each point as the table runs it (a count of
# reads: 64 a thread at 10 GiB, 8 at 4 GiB, 1M threads, most of them in blocks that start as
# others end) and as a timed run (workload.ios=0, duration 1.5 s: only the resident blocks run,
# each thread reading until the time is up), both protocols; and the 10 GiB point with
# gpu.queue_mapping thread. One process each, median of 3 runs, ceilings in the same process.
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
for proto in hardware emulator; do
  for point in optane10_1g ideal_512_4g; do
    a=$(PROTOCOL=$proto bash scripts/gpu/io-path-table.sh --args $point)
    # shellcheck disable=SC2086
    run ${point}_${proto}_count $a
    timed=$(echo "$a" | sed -E 's/--ios [0-9]+/--set workload.ios=0 --set workload.duration_s=1.5/')
    # shellcheck disable=SC2086
    run ${point}_${proto}_timed $timed
  done
done
a=$(PROTOCOL=hardware bash scripts/gpu/io-path-table.sh --args optane10_1g)
# shellcheck disable=SC2086
run optane10_1g_hardware_count_threadmap $a --set gpu.queue_mapping=thread
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c2.tgz r log.txt time.txt && rm -rf r
