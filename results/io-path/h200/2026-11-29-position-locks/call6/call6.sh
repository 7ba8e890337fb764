# Call 6 (device tool, one H200), from the repository root: Figure 4's 1-SSD point (3 processes
# a sweep), H (before) and K (kept) in turn.
set -u
cd build/carry && tar xJf bin.tar.xz && mv bin H && tar xJf k.tar.xz && cd ../..
for v in H K; do
  /usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin build/carry/$v \
    --out $OUT/fig4-$v --gpu h200 --session position-locks-call6 --points 0 > $OUT/fig4-$v.log 2>&1
done
cd $OUT && tar czf c6.tgz fig4-* && rm -rf fig4-*
