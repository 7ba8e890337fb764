# Call 4 (device tool, one H200), from the repository root: did 6b62f71 (the ordering read's
# holder as one alone on its queue: a second out-of-line submission in the hardware protocol's
# kernels) cost taxi-query's bam::array kernel, whose spills ptxas put at 28 / 28 bytes against
# 8 / 8? old = taxi-query built at 7169e30 (its parent), new = taxi-query at 45d7eeb's code (the
# same library and kernels as 6b62f71 for taxi-query). A synthetic table of 32 M rows
# (bam-data taxi-gen, seed 1); each process runs Q0-Q5 by `bam` only, 3 runs (--repeat 3), over 4
# optane-p5800x in the hardware protocol, results checked (--verify); old and new alternated, 3
# rounds, either first.
set -u
T0=$SECONDS
cd build/carry && tar xJf s4.tar.xz && cd ../..
B=build/carry/s4
$B/bam-data taxi-gen --rows 32000000 --seed 1 --out /tmp/taxi32 > $OUT/gen.log 2>&1
echo "gen rc=$? $((SECONDS-T0)) s" >> $OUT/gen.log
mkdir -p $OUT/taxi
run() {  # build round
  $B/$1/taxi-query --config configs/taxi/optane-gpu.json --ssds 4 \
    --set storage.media.size_bytes=536870912 --set storage.protocol=hardware --set taxi.impl=bam \
    --data /tmp/taxi32 --query all --min-distance 20 --verify --repeat 3 \
    --report $OUT/taxi/$1_$2.json > $OUT/taxi/$1_$2.txt 2>&1
  echo "== $1 round $2 rc=$? $((SECONDS-T0)) s: $(grep -E 'taxi: bam:|repeat:' $OUT/taxi/$1_$2.txt | tr '\n' ' ')"
}
for r in 1 2 3; do
  if [ $((r % 2)) = 1 ]; then run old $r; run new $r; else run new $r; run old $r; fi
done > $OUT/taxi.log 2>&1
echo "all $((SECONDS-T0)) s" >> $OUT/taxi.log
cd $OUT && tar czf c4.tgz gen.log taxi taxi.log && rm -rf taxi
