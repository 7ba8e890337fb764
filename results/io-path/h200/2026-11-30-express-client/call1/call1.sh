# Call 1 (device tool, one H200), from the repository root: X = the express submission and wait
# (a submitter first in line moves the tail over its own entry alone; a waiter whose command is
# its queue's only one polls the entry at the head and passes it itself), built on 9e1537e;
# O = 9e1537e. The queue's GPU test on X (and its small cases under compute-sanitizer memcheck
# and synccheck); regression-points.sh O against X, 2 rounds: QD1 null and optane and one queue
# pair at 1K / 64K / 1M threads in both protocols, and in the hardware one the 128-queue null
# point, Figure 4's 10-SSD reads at 1K / 4K threads, the cache's cold misses and hot reuse; one
# queue pair with 8 and 32 threads (null), both protocols.
set -u
T0=$SECONDS
cd build/carry && tar xJf c1.tar.xz && cd ../..
B=build/carry/c1
$B/X/queue_outstanding_gpu_test > $OUT/qtest.log 2>&1
echo "qtest rc=$? $((SECONDS-T0)) s" >> $OUT/qtest.log
BIN=$B/X OUT=$OUT/san TOOLS="memcheck synccheck" NAMES=queue_outstanding_gpu_test \
  bash scripts/gpu/sanitize.sh > $OUT/san.log 2>&1
echo "sanitize rc=$? $((SECONDS-T0)) s" >> $OUT/san.log
OLD=$B/O NEW=$B/X OUT=$OUT/emu ROUNDS=2 TABLE_PROTOCOL=emulator \
  POINTS="table_qd1_null table_qd1_optane table_oneqp_null" \
  bash scripts/gpu/regression-points.sh > $OUT/emu.log 2>&1
OLD=$B/O NEW=$B/X OUT=$OUT/hw ROUNDS=2 ARGS="--set storage.protocol=hardware" \
  POINTS="table_qd1_null table_qd1_optane table_oneqp_null nbb_null_512 f4_512_1024 f4_4k_1024 f4_512_4096 cb_miss_optane cb_hot_reuse" \
  bash scripts/gpu/regression-points.sh > $OUT/hw.log 2>&1
mkdir -p $OUT/few
for r in 1 2; do
  for p in emulator hardware; do
    for t in 8 32; do
      for b in O X; do
        $B/$b/nvm-block-bench --backend emulated --pairs 1 --depth 1024 --outstanding 1 --repeat 3 \
          --io-size 512 --ios 200000 --model null --set storage.protocol=$p --threads $t \
          --report $OUT/few/${p}_${t}_${b}_$r.json > $OUT/few/${p}_${t}_${b}_$r.txt 2>&1
        echo "== $p $t $b $r rc=$? $(grep -E 'repeat:' $OUT/few/${p}_${t}_${b}_$r.txt | head -1)"
      done
    done
  done
done > $OUT/few.log 2>&1
for d in emu hw; do /usr/bin/python3 scripts/gpu/regression-table.py $OUT/$d > $OUT/$d.md 2>&1; done
echo "all $((SECONDS-T0)) s" >> $OUT/few.log
cd $OUT && tar czf c1.tgz qtest.log san san.log emu emu.log hw hw.log few few.log && rm -rf san emu hw few
