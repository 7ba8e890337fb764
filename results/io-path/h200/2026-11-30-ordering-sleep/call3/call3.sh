# Call 3 (device tool, one H200), from the repository root: does the waiters' polling hold the
# large footprints? Call 2: a timed run (every resident thread in a read) read 3-6 % lower at the
# 10 GiB point than the table's count of reads (a third to a half of them in a read). V = call 1's
# build (a waiter's sleep ceiling 32 ns per command its queue holds, 1 us at most); W2 = V with
# 128 ns per command (1 us from 8 commands on); W4 = W2 with 4 us at most (from 32 commands on).
# Each against V with regression-points.sh, 2 rounds, the hardware protocol.
set -u
T0=$SECONDS
cd build/carry && tar xJf w.tar.xz && tar xJf v.tar.xz && cd ../..
P="table_optane10_1g table_ideal_512_4g f4_512_1024 f4_512_4096 table_oneqp_null table_qd1_null"
for w in W2 W4; do
  OLD=build/carry/V NEW=build/carry/$w OUT=$OUT/$w ROUNDS=2 POINTS="$P" \
    ARGS="--set storage.protocol=hardware" bash scripts/gpu/regression-points.sh > $OUT/$w.log 2>&1
  echo "points rc=$? $((SECONDS-T0)) s" >> $OUT/$w.log
  /usr/bin/python3 scripts/gpu/regression-table.py $OUT/$w > $OUT/$w.md 2>&1
done
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c3.tgz W2 W4 W2.log W4.log W2.md W4.md time.txt && rm -rf W2 W4
