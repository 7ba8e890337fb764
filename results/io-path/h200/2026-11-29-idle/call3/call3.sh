# Call 3 (device tool, one H200), from the repository root: which of call 2's steps cost the
# throughput points. A = 5fb7db8; B = A + p-idle.patch (a warp that serves no queue sleeps
# 2,048 ns per idle turn); BF = B + p-ordering.patch (the ordering read's head and lock loaded
# together, its holder's head and tail together); BE = B + p-backoff.patch (a waiter's sleep
# capped by its queue's commands); BD = B + p-marker.patch (a submitter's first try for the tail
# lock without loading its marker). QD1 null, ideal 512 B 1 GiB and one queue pair, both
# protocols, the variants in turn, 2 rounds.
set -u
cd build/carry && tar xJf var.tar.xz && cd ../..
for round in 1 2; do
  for p in hardware emulator; do
    for v in A B BF BE BD; do
      BIN=build/carry/$v OUT=$OUT/r$round/$v PROTOCOL=$p POINTS="qd1_null ideal_512_1g oneqp_null" \
        bash scripts/gpu/io-path-table.sh > $OUT/r$round-$v-$p.log 2>&1
    done
  done
done
cd $OUT && tar czf reports.tgz r1 r2 r*.log && rm -rf r1 r2 r*.log
