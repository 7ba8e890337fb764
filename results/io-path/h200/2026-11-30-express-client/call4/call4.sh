# Call 4 (device tool, one H200), from the repository root: where call 3's loss at the 128-queue
# null point (emulator protocol) comes from. O = 9e1537e, Z = call 3's build; V1 = Z without the
# express wait, V2 = Z without the express submission, V3 = Z without either (each a one-line
# edit of Z's queue_pair_ref.hpp: `express` / `look` false), nvm-block-bench only. In rotation, 2
# rounds (O Z V1 V2 V3, then reversed): the 128-queue null point and QD1 null, emulator protocol;
# the 128-queue null point, hardware protocol; one queue pair with 8 threads, emulator protocol.
set -u
T0=$SECONDS
cd build/carry && tar xJf c4.tar.xz && cd ../..
B=build/carry/c4
NBB=(--backend emulated --outstanding 1 --pairs 128 --depth 1024 --threads 1048576 --model null
  --repeat 3 --io-size 512 --set storage.media.size_bytes=1073741824 --ios 16777216)
QD1=(--backend emulated --pairs 1 --depth 64 --threads 1 --outstanding 1 --repeat 3 --ios 20000
  --io-size 512 --model null)
EIGHT=(--backend emulated --pairs 1 --depth 1024 --outstanding 1 --repeat 3 --io-size 512
  --ios 200000 --model null --threads 8)
mkdir -p $OUT/v
run() {  # build point protocol round args...
  local b=$1 n=$2 p=$3 r=$4; shift 4
  $B/$b/nvm-block-bench "$@" --set storage.protocol=$p --report $OUT/v/${n}_${p}_${b}_$r.json \
    > $OUT/v/${n}_${p}_${b}_$r.txt 2>&1
  echo "== $n $p $b $r rc=$? $(grep -E 'repeat:' $OUT/v/${n}_${p}_${b}_$r.txt | head -1 | sed 's/p99.99.*//')"
}
for r in 1 2; do
  order="O Z V1 V2 V3"; [ $r = 2 ] && order="V3 V2 V1 Z O"
  for b in $order; do
    run $b null128 emulator $r "${NBB[@]}"
    run $b null128 hardware $r "${NBB[@]}"
    run $b qd1 emulator $r "${QD1[@]}"
    run $b eight emulator $r "${EIGHT[@]}"
  done
done > $OUT/v.log 2>&1
echo "all $((SECONDS-T0)) s" >> $OUT/v.log
cd $OUT && tar czf c4.tgz v v.log && rm -rf v
