# Call 3 (device tool, one H200), from the repository root: Z = call 2's Y with the express
# submission only on an idle queue (the CQ head at the submitter's ticket), looked at only where
# no other lane of the warp submits to the same queue at once (the CQ head and the SQ head loaded
# with the ticket, not the next ticket, the tail and the SQ head); built on 9e1537e. O = 9e1537e.
# The same as call 2, and the 10 GiB and 4 GiB points of issue 19's table (hardware protocol).
set -u
T0=$SECONDS
cd build/carry && tar xJf c3.tar.xz && cd ../..
B=build/carry/c3
$B/Z/queue_outstanding_gpu_test > $OUT/qtest.log 2>&1
echo "qtest rc=$? $((SECONDS-T0)) s" >> $OUT/qtest.log
BIN=$B/Z OUT=$OUT/san TOOLS="memcheck synccheck" NAMES=queue_outstanding_gpu_test \
  bash scripts/gpu/sanitize.sh > $OUT/san.log 2>&1
echo "sanitize rc=$? $((SECONDS-T0)) s" >> $OUT/san.log
OLD=$B/O NEW=$B/Z OUT=$OUT/emu ROUNDS=2 TABLE_PROTOCOL=emulator \
  ARGS="--set storage.protocol=emulator" \
  POINTS="table_qd1_null table_qd1_optane table_oneqp_null nbb_null_512" \
  bash scripts/gpu/regression-points.sh > $OUT/emu.log 2>&1
OLD=$B/O NEW=$B/Z OUT=$OUT/hw ROUNDS=2 ARGS="--set storage.protocol=hardware" \
  POINTS="table_qd1_null table_qd1_optane table_oneqp_null nbb_null_512 f4_512_1024 f4_4k_1024 f4_512_4096 table_optane10_1g table_ideal_512_4g" \
  bash scripts/gpu/regression-points.sh > $OUT/hw.log 2>&1
mkdir -p $OUT/few
for r in 1 2; do
  for p in emulator hardware; do
    for t in 8 32; do
      for b in O Z; do
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
cd $OUT && tar czf c3.tgz qtest.log san san.log emu emu.log hw hw.log few few.log && rm -rf san emu hw few
