# Call 5 (device tool, one H200), from the repository root: is call 4's taxi-query difference
# (ideal drives: 7169e30's build 1.3 % faster than 45d7eeb's in 4 of 4 rounds) 6b62f71's second
# out-of-line submission? R = HEAD (b42ff93's code) with the ordering read's holder through
# submit_and_wait_outlined again (one line of ordering_read.hpp), built in the same tree as new
# (45d7eeb's taxi-query) and N (53c37c5's nvm-block-bench). taxi-query as call 4's second part (4
# x ideal, hardware protocol, Q0-Q5 by bam, --verify, --repeat 5), R and new alternated, 4 rounds;
# then regression-points.sh N against R: QD1 null and optane, Figure 4's 512 B reads at 1K
# threads, 3 rounds, the hardware protocol.
set -u
T0=$SECONDS
cd build/carry && tar xJf s5.tar.xz && cd ../..
B=build/carry/s5
$B/bam-data taxi-gen --rows 32000000 --seed 1 --out /tmp/taxi32 > $OUT/gen.log 2>&1
mkdir -p $OUT/taxi
run() {
  $B/$1/taxi-query --config configs/taxi/optane-gpu.json --ssds 4 --model ideal \
    --set storage.media.size_bytes=536870912 --set storage.protocol=hardware --set taxi.impl=bam \
    --data /tmp/taxi32 --query all --min-distance 20 --verify --repeat 5 \
    --report $OUT/taxi/$1_$2.json > $OUT/taxi/$1_$2.txt 2>&1
  echo "== $1 round $2 rc=$? $((SECONDS-T0)) s: $(grep -E 'taxi: bam:|repeat:' $OUT/taxi/$1_$2.txt | tr '\n' ' ')"
}
for r in 1 2 3 4; do
  if [ $((r % 2)) = 1 ]; then run R $r; run new $r; else run new $r; run R $r; fi
done > $OUT/taxi.log 2>&1
OLD=$B/N NEW=$B/R OUT=$OUT/qd1 ROUNDS=3 ARGS="--set storage.protocol=hardware" \
  POINTS="table_qd1_null table_qd1_optane f4_512_1024" bash scripts/gpu/regression-points.sh > $OUT/qd1.log 2>&1
/usr/bin/python3 scripts/gpu/regression-table.py $OUT/qd1 > $OUT/qd1.md 2>&1
echo "all $((SECONDS-T0)) s" >> $OUT/taxi.log
cd $OUT && tar czf c5.tgz gen.log taxi taxi.log qd1 qd1.log qd1.md && rm -rf taxi qd1
