# Call 5 (device tool, one H200), from the repository root: scripts/gpu/probes/sm-host-reads.cu
# with more sets (even16, first8, even8, first32), then the engine's blocks on the even SMs only
# (block b on SM 2b: engine-place.patch as of call 5 on df25096, BAM_ENGINE_PLACE=2, P2) against
# the scheduler's placement (P0): the 10 GiB point in both protocols and the 4 GiB `ideal` point
# (hardware), 16 blocks (the default), alternated, 2 rounds.
set -u
cd build/carry && tar xJf p.tar.xz && cd ../..
nvidia-smi > $OUT/nvidia-smi.txt 2>&1
build/carry/P/sm-host-reads 30 5 > $OUT/sm-host-reads.txt 2>&1
for round in 1 2; do
  for v in P2 P0; do
    export BAM_ENGINE_PLACE=${v#P}
    for proto in hardware emulator; do
      BIN=build/carry/P OUT=$OUT/t/r$round/$v PROTOCOL=$proto POINTS="optane10_1g" \
        bash scripts/gpu/io-path-table.sh > $OUT/t-r$round-$v-$proto.log 2>&1
    done
    BIN=build/carry/P OUT=$OUT/t/r$round/$v PROTOCOL=hardware POINTS="ideal_512_4g" \
      bash scripts/gpu/io-path-table.sh >> $OUT/t-r$round-$v-hardware.log 2>&1
  done
done
cd $OUT && tar czf c5.tgz t t-*.log && rm -rf t t-*.log
