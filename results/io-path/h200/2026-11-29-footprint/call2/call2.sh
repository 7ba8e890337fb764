# Call 2 (device tool, one H200), from the repository root: the engine's size at the large
# pinned footprints, alternated, 2 rounds. nvm-block-bench at cb227bc, stripped into
# build/carry/bin. A = the automatic shape (16 x 16; 17 x 16 in the hardware protocol at 10 SSDs),
# B24 / B32 / B40 = gpu.engine_blocks given (16 warps each).
set -u
run() {  # variant protocol points extra...
  local v=$1 p=$2 pts=$3; shift 3
  BIN=build/carry/bin OUT=$OUT/r$round/$v PROTOCOL=$p POINTS="$pts" EXTRA="$*" \
    bash scripts/gpu/io-path-table.sh > /dev/null 2>&1
}
for round in 1 2; do
  for p in emulator hardware; do
    run A $p "optane10_1g ideal_512_4g"
    run B24 $p "optane10_1g ideal_512_4g" --set gpu.engine_blocks=24
    run B32 $p "optane10_1g ideal_512_4g" --set gpu.engine_blocks=32
    run B40 $p "optane10_1g ideal_512_4g" --set gpu.engine_blocks=40
  done
done
round=1
for p in emulator hardware; do
  run A $p optane10_256m
  run B32 $p optane10_256m --set gpu.engine_blocks=32
done
cd $OUT && tar czf reports.tgz r1 r2 nvidia-smi.csv 2>/dev/null || tar czf reports.tgz r1 r2
