# Call 4 (device tool, one H200), from the repository root: Figure 4's 1-SSD and 10-SSD points
# (3 processes each), A (0937a7c) and N (0937a7c + the engine's express post) in turn.
set -u
cd build/carry && tar xJf all.tar.xz && cd ../..
for pt in 0 4; do
  for v in A N; do
    /usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin build/carry/$v --out $OUT/fig4-$v \
      --gpu h200 --session express-call4 --points $pt > $OUT/fig4-$v-$pt.log 2>&1
  done
done
cd $OUT && tar czf c4.tgz fig4-A fig4-N fig4-*.log && rm -rf fig4-A fig4-N fig4-*.log
