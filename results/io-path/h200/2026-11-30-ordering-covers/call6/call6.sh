# Call 6 (device tool, one H200), from the repository root: where the 10 GiB point's
# hardware-protocol tail waits, before and after the covers. TK = 241c97c + tail-probe.patch,
# TF = f608fc2 + tail-probe.patch (scripts/gpu/probes/: each sampled command's time from its SQ
# entry's write to its fetch, from the fetch to its due time, from the due time to its post; the
# rest of a read's latency is the client's noticing and, in the hardware protocol, its ordering
# wait). issue 19's optane10_1g point, hardware protocol, TK and TF alternated, 2 rounds; then TF
# in the emulator protocol once.
set -u
cd build/carry && tar xJf tp.tar.xz && cd ../..
for round in 1 2; do
  for v in TK TF; do
    BIN=build/carry/$v OUT=$OUT/t/r$round/$v PROTOCOL=hardware POINTS="optane10_1g" \
      bash scripts/gpu/io-path-table.sh > $OUT/t-r$round-$v.log 2>&1
  done
done
BIN=build/carry/TF OUT=$OUT/t/emu/TF PROTOCOL=emulator POINTS="optane10_1g" \
  bash scripts/gpu/io-path-table.sh > $OUT/t-emu-TF.log 2>&1
cd $OUT && tar czf c6.tgz t t-*.log && rm -rf t t-*.log
