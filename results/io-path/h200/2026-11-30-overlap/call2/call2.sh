# Call 2 (device tool, one H200), from the repository root: B3 = call 1's B2 (a batch's last pass
# flies while the next turn claims, fetches and books) with the copies as bulk copies
# (cp.async.bulk into the warp's staging area, an mbarrier counting each pass's bytes), so that the
# next batch's loads do not queue behind the lanes' own copies. O = 382f5cc's nvm-block-bench and
# cache-bench. Every GPU test on B3; regression-points.sh O against B3, 2 rounds, the hardware
# protocol; then the 10 GiB and 4 GiB points in the emulator protocol, 2 rounds.
set -u
T0=$SECONDS
cd build/carry && tar xJf s2.tar.xz && cd ../..
BIN=build/carry/s2/B3 OUT=$OUT/tests-B3 bash scripts/gpu/run-gpu-tests.sh > $OUT/tests-B3.log 2>&1
echo "tests B3 rc=$? $((SECONDS-T0)) s" >> $OUT/tests-B3.log
P="table_optane10_1g table_ideal_512_4g f4_512_1024 f4_512_4096 f4_4k_1024 table_qd1_null table_oneqp_null"
OLD=build/carry/s2/O NEW=build/carry/s2/B3 OUT=$OUT/B3 ROUNDS=2 POINTS="$P" \
  ARGS="--set storage.protocol=hardware" bash scripts/gpu/regression-points.sh > $OUT/B3.log 2>&1
echo "points rc=$? $((SECONDS-T0)) s" >> $OUT/B3.log
/usr/bin/python3 scripts/gpu/regression-table.py $OUT/B3 > $OUT/B3.md 2>&1
OLD=build/carry/s2/O NEW=build/carry/s2/B3 OUT=$OUT/B3emu ROUNDS=2 TABLE_PROTOCOL=emulator \
  POINTS="table_optane10_1g table_ideal_512_4g" bash scripts/gpu/regression-points.sh > $OUT/B3emu.log 2>&1
echo "points rc=$? $((SECONDS-T0)) s" >> $OUT/B3emu.log
/usr/bin/python3 scripts/gpu/regression-table.py $OUT/B3emu > $OUT/B3emu.md 2>&1
echo "all $((SECONDS-T0)) s" >> $OUT/B3emu.md
cd $OUT && tar czf c2.tgz tests-B3 tests-B3.log B3 B3.log B3.md B3emu B3emu.log B3emu.md && rm -rf tests-B3 B3 B3emu
