# Call 4 (device tool, one H200), from the repository root: Figure 4's 10-SSD point (3 processes
# a sweep), A (0937a7c, before the express post), H (the build before this step) and K (kept) in
# turn, twice: 6 processes a build, alternated.
set -u
cd build/carry && tar xJf bin.tar.xz && mv bin H && tar xJf k.tar.xz && tar xJf a.tar.xz && cd ../..
for round in 1 2; do
  for v in A H K; do
    /usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin build/carry/$v \
      --out $OUT/fig4-r$round-$v --gpu h200 --session position-locks-call4 --points 4 \
      > $OUT/fig4-r$round-$v.log 2>&1
  done
done
cd $OUT && tar czf c4.tgz fig4-* && rm -rf fig4-*
