#!/bin/bash
# Session 2026-11-29 (04:06-07:06), call 3: queue handover, second policy (a warp keeps half its
# share of queues; forced takes only by warps whose last turn was not full, any warp after 2 ms;
# a queue whose parked completion is due >= 1 ms later is kept), on the GPU. ho = this build
# (handover on by default; off with --set gpu.engine_handover=false); new = bf37602's
# nvm-block-bench. The emulated-drive tests (fault and recovery tests with handover off and on),
# memcheck on a small nvm-block-bench run that hands queues over, then the 10-SSD 1 GiB point
# (2 rounds), the hardware protocol's, the 4 GiB point, QD1 and 4 KiB x 10 SSDs.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stage3.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $OUT/t/nvidia-smi.csv 2>&1
timeout 300 $W/stage3/ho/emulated_drives_test > $OUT/t/edt.txt 2>&1
echo "== edt rc=$? $((SECONDS-T0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED|handovers|Failure" $OUT/t/edt.txt | head -30
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
SMALL=(--backend emulated --pairs 64 --depth 256 --threads 16384 --outstanding 1 --io-size 512 --ios 100000 --model ideal --set storage.media.size_bytes=67108864 --set gpu.engine_blocks=1 --set gpu.engine_warps_per_block=4 --repeat 1)
timeout 240 $CS --tool memcheck $W/stage3/ho/nvm-block-bench "${SMALL[@]}" --report $OUT/t/memcheck.json > $OUT/t/memcheck.txt 2>&1
echo "== memcheck rc=$? $((SECONDS-T0)) s $(grep -o '"engine_handovers": *[0-9]*' $OUT/t/memcheck.json | head -1)"; grep -E "ERROR SUMMARY|  read" $OUT/t/memcheck.txt | head
B=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --io-size 512 --threads 1048576)
O10=(--ssds 10 --model optane-p5800x --set storage.media.size_bytes=1073741824 --ios 67108864)
I4=(--model ideal --set storage.media.size_bytes=4294967296 --ios 16777216)
QD1=(--backend emulated --pairs 1 --depth 64 --threads 1 --outstanding 1 --repeat 3 --ios 20000 --io-size 512)
OFF=(--set gpu.engine_handover=false)
run() { # name binary protocol args...
  local n=$1 b=$2 pr=$3; shift 3
  timeout 120 $W/stage3/$b/nvm-block-bench "$@" --set storage.protocol=$pr --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  (read|write)' $OUT/t/$n.txt | tail -1) ho=$(grep -o '"engine_handovers": *[0-9]*' $OUT/t/$n.json | head -1 | grep -o '[0-9]*$')"
  grep -E "repeat|ceiling" $OUT/t/$n.txt | head -3
}
for r in 1 2; do
  run emu10_new_$r new emulator "${B[@]}" "${O10[@]}" --measure-ceilings
  run emu10_ho_$r ho emulator "${B[@]}" "${O10[@]}" --measure-ceilings
  run emu10_off_$r ho emulator "${B[@]}" "${O10[@]}" "${OFF[@]}" --measure-ceilings
done
run hw10_ho ho hardware "${B[@]}" "${O10[@]}" --measure-ceilings
run hw10_off ho hardware "${B[@]}" "${O10[@]}" "${OFF[@]}" --measure-ceilings
run emu4g_new new emulator "${B[@]}" "${I4[@]}" --measure-ceilings
run emu4g_ho ho emulator "${B[@]}" "${I4[@]}" --measure-ceilings
run emu4g_off ho emulator "${B[@]}" "${I4[@]}" "${OFF[@]}" --measure-ceilings
run qd1null_ho ho emulator "${QD1[@]}" --model null
run qd1opt_ho ho emulator "${QD1[@]}" --model optane-p5800x
K4=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --io-size 4096 --set storage.lba_size=4096 --threads 1048576 --model optane-p5800x --ios 4194304 --ssds 10)
run k4_10_ho ho emulator "${K4[@]}"
run k4_10_off ho emulator "${K4[@]}" "${OFF[@]}"
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
