# Call 4 (device tool, one H200), from the repository root: every GPU test at 612a954 (staged on
# the dev machine with scripts/gpu/run-gpu-tests.sh --stage, in build/carry/bin.tar.xz), then
# issue 19's whole table in both protocols, A (5fb7db8) and K (612a954: the engine's unserving
# sleep and the waiter's sleep cap) in turn.
set -u
mkdir -p /tmp/s && tar xJf build/carry/bin.tar.xz -C /tmp/s
tar xJf build/carry/a.tar.xz -C build/carry
BIN=/tmp/s/bin OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.txt 2>&1
for p in emulator hardware; do
  for v in A K; do
    bin=build/carry/A; [ $v = K ] && bin=/tmp/s/bin
    BIN=$bin OUT=$OUT/t/$v PROTOCOL=$p bash scripts/gpu/io-path-table.sh > $OUT/t-$v-$p.log 2>&1
  done
done
cd $OUT && tar czf c4.tgz tests t t-*.log && rm -rf tests t t-*.log
