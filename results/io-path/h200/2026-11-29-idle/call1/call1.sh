# Call 1 (device tool, one H200), from the repository root: the engine's idle sleep and the
# submitter's first look at its marker. A = 5fb7db8; B = A + idle.patch (a warp that serves no
# queue sleeps 2,048 ns per idle turn, not 64); C = B with the serving warps' idle sleep 0
# (BAM_PROBE_Q_SLEEP 0); D = A + marker.patch (a submitter's first try for the tail lock without
# loading its marker). Round 1: QD1 null and optane, one queue pair, ideal 512 B 1 GiB and
# 10 x optane 1 GiB, both protocols, the variants in turn; round 2: the QD1 points again.
set -u
cd build/carry && tar xJf var.tar.xz && cd ../..
for round in 1 2; do
  for p in emulator hardware; do
    for v in A B C D; do
      pts="qd1_null qd1_optane"
      [ $round = 1 ] && pts="$pts oneqp_null ideal_512_1g optane10_1g"
      BIN=build/carry/$v OUT=$OUT/r$round/$v PROTOCOL=$p POINTS="$pts" \
        bash scripts/gpu/io-path-table.sh > $OUT/r$round-$v-$p.log 2>&1
    done
  done
done
cd $OUT && tar czf reports.tgz r1 r2 r*.log
