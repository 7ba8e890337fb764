# Call 7 (device tool, one H200), from the repository root: 51cca9b's regression-points.sh with
# its new table_ and f4_ points, OLD = c61a382's nvm-block-bench (H), NEW = c334cb4's (B: the
# same I/O path, one protocol text), 2 rounds; then regression-table.py over them.
set -u
T0=$SECONDS
cd build/carry && tar xJf hn.tar.xz && tar xJf b.tar.xz && cd ../..
OLD=build/carry/H NEW=build/carry/B OUT=$OUT/ab ROUNDS=2 \
  POINTS="table_optane10_1g table_qd1_null f4_512_1024 f4_4k_1024" \
  bash scripts/gpu/regression-points.sh > $OUT/ab.log 2>&1
echo "points rc=$? $((SECONDS-T0)) s" >> $OUT/ab.log
/usr/bin/python3 scripts/gpu/regression-table.py $OUT/ab > $OUT/table.md 2>&1
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c7.tgz ab ab.log table.md time.txt && rm -rf ab
