# Call 3 (device tool, one H200), from the repository root: an automatic engine of 4 blocks per
# SSD (at least 16), with the ordering warps beside (V: cb227bc + call3/engine-per-drive.patch,
# stripped into build/carry/v), alternated with cb227bc (H, build/carry/bin): the 10 GiB point
# in both protocols, 2 rounds; Figure 4's 8- and 10-SSD points (3 processes each), V and H in
# turn.
set -u
H=build/carry/bin V=build/carry/v
run() {  # bin name protocol
  BIN=$1 OUT=$OUT/r$round/$2 PROTOCOL=$3 POINTS=optane10_1g bash scripts/gpu/io-path-table.sh \
    > /dev/null 2>&1
}
for round in 1 2; do
  for p in emulator hardware; do
    run $H H $p
    run $V V $p
  done
done
for pt in 3 4; do
  for b in V H; do
    bin=$H; [ $b = V ] && bin=$V
    /usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin $bin --out $OUT/fig4-$b \
      --gpu h200 --session call3 --points $pt > $OUT/fig4-$b-$pt.log 2>&1
  done
done
cd $OUT && tar czf reports.tgz r1 r2 fig4-V fig4-H fig4-*.log
