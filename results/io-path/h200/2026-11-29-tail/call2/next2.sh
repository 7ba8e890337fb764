#!/bin/bash
# Session 2026-11-29 02:30, call 2: where the emulator protocol's slow mode waits (tprobe2 = bf37602
# + tail-probe.patch + per-queue / per-poll counters and a "lane first saw entries -> took" span),
# and the variant nothr (the booking-horizon throttle in new_entries off: every entry is fetched
# when seen and waits for its drive's pipe in the pending table), 10 x optane x 1 GiB, 1M threads.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stage2.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
B=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --ssds 10 --model optane-p5800x --io-size 512 --set storage.media.size_bytes=1073741824)
run() { # name binary protocol threads ios extra...
  local n=$1 b=$2 pr=$3 th=$4 ios=$5; shift 5
  timeout 120 $W/stage2/$b/nvm-block-bench "${B[@]}" --threads $th --ios $ios --set storage.protocol=$pr "$@" --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/t/$n.txt | tail -1)"
  grep -E "ceiling|repeat" $OUT/t/$n.txt | head -4
  grep "tail probe" $OUT/t/$n.txt | tail -9
}
for r in 1 2; do
  run emu_new_$r new emulator 1048576 67108864 --measure-ceilings
  run emu_nothr_$r nothr emulator 1048576 67108864 --measure-ceilings
done
run emu_tprobe2 tprobe2 emulator 1048576 67108864
run emu_nothr_probe nothr_probe emulator 1048576 67108864
run emu_new_128k new emulator 131072 16777216
run emu_nothr_128k nothr emulator 131072 16777216
run hw_new new hardware 1048576 67108864 --measure-ceilings
run hw_nothr nothr hardware 1048576 67108864 --measure-ceilings
run hw_tprobe2 tprobe2 hardware 1048576 67108864
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
