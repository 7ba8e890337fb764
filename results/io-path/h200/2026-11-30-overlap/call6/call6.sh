# Call 6 (device tool, one H200), from the repository root: A1 = the ordering read's holder as
# one alone on its queue through a flag of the one out-of-line submission
# (submit_and_wait_outlined(cmd, timeout, alone)), not a second function, and the review's test
# changes (nbb_gpu_test: the client threads counted when more blocks run than fit); built on
# b42ff93, staged with every GPU test. N = 53c37c5's code (nvm-block-bench; 45d7eeb's taxi-query;
# 382f5cc's cache-bench: the same device code), R = call 5's (the holder through the plain
# out-of-line submission). Every GPU test on A1; taxi-query as call 5 (4 x ideal, hardware
# protocol), A1 against R, 4 rounds alternated; regression-points.sh N against A1, 3 rounds, the
# hardware protocol: QD1 null and optane, Figure 4's 512 B reads at 1K threads, the cache's cold
# misses and hot reuse.
set -u
T0=$SECONDS
cd build/carry && tar xJf s6.tar.xz && cd ../..
B=build/carry/s6
BIN=$B/A1 OUT=$OUT/tests-A1 bash scripts/gpu/run-gpu-tests.sh > $OUT/tests-A1.log 2>&1
echo "tests A1 rc=$? $((SECONDS-T0)) s" >> $OUT/tests-A1.log
$B/bam-data taxi-gen --rows 32000000 --seed 1 --out /tmp/taxi32 > /dev/null 2>&1
mkdir -p $OUT/taxi
run() {
  $B/$1/taxi-query --config configs/taxi/optane-gpu.json --ssds 4 --model ideal \
    --set storage.media.size_bytes=536870912 --set storage.protocol=hardware --set taxi.impl=bam \
    --data /tmp/taxi32 --query all --min-distance 20 --verify --repeat 5 \
    --report $OUT/taxi/$1_$2.json > $OUT/taxi/$1_$2.txt 2>&1
  echo "== $1 round $2 rc=$? $((SECONDS-T0)) s: $(grep -E 'taxi: bam:|repeat:' $OUT/taxi/$1_$2.txt | tr '\n' ' ')"
}
for r in 1 2 3 4; do
  if [ $((r % 2)) = 1 ]; then run A1 $r; run R $r; else run R $r; run A1 $r; fi
done > $OUT/taxi.log 2>&1
OLD=$B/N NEW=$B/A1 OUT=$OUT/ab ROUNDS=3 ARGS="--set storage.protocol=hardware" \
  POINTS="table_qd1_null table_qd1_optane f4_512_1024 cb_miss_optane cb_hot_reuse" \
  bash scripts/gpu/regression-points.sh > $OUT/ab.log 2>&1
/usr/bin/python3 scripts/gpu/regression-table.py $OUT/ab > $OUT/ab.md 2>&1
echo "all $((SECONDS-T0)) s" >> $OUT/taxi.log
cd $OUT && tar czf c6.tgz tests-A1 tests-A1.log taxi taxi.log ab ab.log ab.md && rm -rf tests-A1 taxi ab
