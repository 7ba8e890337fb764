# Call 9 (device tool, one H200), from the repository root: with the engine on the first SMs
# (--set gpu.engine_placement=first-sms), do deeper copies (engine_copy_depth 16 instead of 8:
# D = 6d7c574 with that constant, a variant) use the blocks' even share of host reads better? D
# and H (c61a382's nvm-block-bench, depth 8), both with first-sms, the 10 GiB point in both
# protocols, alternated, 2 rounds.
set -u
cd build/carry && tar xJf hn.tar.xz && tar xJf d.tar.xz && cd ../..
for round in 1 2; do
  for v in D H; do
    for proto in hardware emulator; do
      BIN=build/carry/$v OUT=$OUT/t/r$round/$v PROTOCOL=$proto POINTS="optane10_1g" \
        EXTRA="--set gpu.engine_placement=first-sms" \
        bash scripts/gpu/io-path-table.sh > $OUT/t-r$round-$v-$proto.log 2>&1
    done
  done
done
cd $OUT && tar czf c9.tgz t t-*.log && rm -rf t t-*.log
