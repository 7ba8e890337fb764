# Call 8 (device tool, one H200), from the repository root: call 7 again with 959b20f's
# regression-points.sh, which runs old first in odd rounds and new first in even ones: OLD = H
# (c61a382's nvm-block-bench), NEW = B (c334cb4's, the same I/O path code), 4 rounds, the 10 GiB
# point and Figure 4's 10 x 512 B reads at 1K threads; then regression-table.py.
set -u
T0=$SECONDS
cd build/carry && tar xJf hn.tar.xz && tar xJf b.tar.xz && cd ../..
OLD=build/carry/H NEW=build/carry/B OUT=$OUT/ab ROUNDS=4 POINTS="table_optane10_1g f4_512_1024" \
  bash scripts/gpu/regression-points.sh > $OUT/ab.log 2>&1
echo "points rc=$? $((SECONDS-T0)) s" >> $OUT/ab.log
/usr/bin/python3 scripts/gpu/regression-table.py $OUT/ab > $OUT/table.md 2>&1
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c8.tgz ab ab.log table.md time.txt && rm -rf ab
