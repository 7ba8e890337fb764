# Call 2 (device tool, one H200), from the repository root: QD1's short steps. A = 5fb7db8;
# Q = A + qd1-steps.patch (a warp that serves no queue sleeps 2,048 ns per idle turn; a
# submitter's first try for the tail lock without loading its marker; a waiter's sleep capped by
# its queue's commands, scripts/gpu/probes/qd1-backoff.patch; the ordering read's head and lock
# loaded together, and its holder's head and tail). Round 1: issue 19's whole table, both
# protocols, A and Q in turn; rounds 2-3: the QD1 points again.
set -u
cd build/carry && tar xJf var.tar.xz && cd ../..
for round in 1 2 3; do
  for p in emulator hardware; do
    for v in A Q; do
      pts="qd1_null qd1_optane"
      [ $round = 1 ] && pts="ideal_4k_8g ideal_512_1g ideal_512_4g optane1_512 optane4_512 optane10_256m optane10_1g qd1_null qd1_optane oneqp_null"
      BIN=build/carry/$v OUT=$OUT/r$round/$v PROTOCOL=$p POINTS="$pts" \
        bash scripts/gpu/io-path-table.sh > $OUT/r$round-$v-$p.log 2>&1
    done
  done
done
cd $OUT && tar czf reports.tgz r1 r2 r3 r*.log && rm -rf r1 r2 r3 r*.log
