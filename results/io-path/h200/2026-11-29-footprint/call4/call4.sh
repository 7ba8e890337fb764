# Call 4 (device tool, one H200), from the repository root: every GPU test at cb227bc (HEAD's
# code: 1439fe4's %smid reader and cb227bc's shapes had not run on a GPU), then the 10 GiB point
# with the default (A), gpu.engine_blocks=40 given (B40: the ordering warps taken from the last
# warps) and call 3's V (4 blocks per SSD, the ordering warps beside: 41 blocks at 10 SSDs),
# alternated: hardware protocol 2 rounds, emulator protocol 1.
set -u
mkdir -p /tmp/s && tar xJf build/carry/bin.tar.xz -C /tmp/s
BIN=/tmp/s/bin OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/tests.txt 2>&1
run() {  # bin name protocol extra...
  local b=$1 v=$2 p=$3; shift 3
  BIN=$b OUT=$OUT/r$round/$v PROTOCOL=$p POINTS=optane10_1g EXTRA="$*" \
    bash scripts/gpu/io-path-table.sh > /dev/null 2>&1
}
for round in 1 2; do
  for p in hardware emulator; do
    [ $p = emulator ] && [ $round = 2 ] && continue
    run /tmp/s/bin A $p
    run /tmp/s/bin B40 $p --set gpu.engine_blocks=40
    run /tmp/s/v V $p
  done
done
cd $OUT && tar czf c4.tgz tests r1 r2 tests.txt
