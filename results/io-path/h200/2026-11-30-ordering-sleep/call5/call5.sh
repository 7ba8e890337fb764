# Call 5 (device tool, one H200), from the repository root: call 4's table read the 4 KiB ideal
# point over 8 GiB 5.9 % under issue 19's baseline (hardware protocol; 4.8 % in the emulator
# protocol, where V changed nothing), with its machine's pinned copy at 50.4 GB/s. O against V,
# 3 rounds, that point in both protocols and the 4 GiB point (hardware).
set -u
T0=$SECONDS
cd build/carry && tar xJf v.tar.xz && cd ../..
for proto in hardware emulator; do
  P="table_ideal_4k_8g"
  [ $proto = hardware ] && P="$P table_ideal_512_4g"
  OLD=build/carry/O NEW=build/carry/V OUT=$OUT/$proto ROUNDS=3 POINTS="$P" TABLE_PROTOCOL=$proto \
    bash scripts/gpu/regression-points.sh > $OUT/$proto.log 2>&1
  echo "points rc=$? $((SECONDS-T0)) s" >> $OUT/$proto.log
  /usr/bin/python3 scripts/gpu/regression-table.py $OUT/$proto > $OUT/$proto.md 2>&1
done
echo "all $((SECONDS-T0)) s" > $OUT/time.txt
cd $OUT && tar czf c5.tgz hardware emulator hardware.log emulator.log hardware.md emulator.md time.txt && rm -rf hardware emulator
