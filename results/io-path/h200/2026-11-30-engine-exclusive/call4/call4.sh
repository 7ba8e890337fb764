# Call 4 (device tool, one H200), from the repository root: call 3's placement (block b on SM b,
# scripts/gpu/probes/engine-place.patch on df25096, BAM_ENGINE_PLACE=1) with 32 engine blocks
# (4 a group of call 2's map), against the scheduler's placement with 32 blocks (P0): the 10 GiB
# point in both protocols and the 4 GiB `ideal` point (hardware), alternated, 2 rounds.
set -u
cd build/carry && tar xJf p.tar.xz && cd ../..
nvidia-smi > $OUT/nvidia-smi.txt 2>&1
for round in 1 2; do
  for v in P1 P0; do
    export BAM_ENGINE_PLACE=${v#P}
    for proto in hardware emulator; do
      BIN=build/carry/P OUT=$OUT/t/r$round/$v PROTOCOL=$proto POINTS="optane10_1g" \
        EXTRA="--set gpu.engine_blocks=32" \
        bash scripts/gpu/io-path-table.sh > $OUT/t-r$round-$v-$proto.log 2>&1
    done
    BIN=build/carry/P OUT=$OUT/t/r$round/$v PROTOCOL=hardware POINTS="ideal_512_4g" \
      EXTRA="--set gpu.engine_blocks=32" \
      bash scripts/gpu/io-path-table.sh >> $OUT/t-r$round-$v-hardware.log 2>&1
  done
done
cd $OUT && tar czf c4.tgz t t-*.log && rm -rf t t-*.log
