# Call 5 (device tool, one H200), from the repository root: Figure 4's 1-SSD and 10-SSD points
# (3 processes each), A (5fb7db8) and K (612a954) in turn: K's waiter sleeps at most 32 ns per
# command its queue holds, which at 1K threads over 128 queues per SSD is under the old 1 us.
set -u
mkdir -p /tmp/s && tar xJf build/carry/bin.tar.xz -C /tmp/s
tar xJf build/carry/a.tar.xz -C build/carry
for pt in 0 4; do
  for v in A K; do
    bin=build/carry/A; [ $v = K ] && bin=/tmp/s/bin
    /usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin $bin --out $OUT/fig4-$v \
      --gpu h200 --session idle-call5 --points $pt > $OUT/fig4-$v-$pt.log 2>&1
  done
done
cd $OUT && tar czf c5.tgz fig4-A fig4-K fig4-*.log && rm -rf fig4-A fig4-K fig4-*.log
