#!/bin/bash
# Session 2026-11-29 (04:05-07:05), call 2: queue handover (gpu.engine_handover) on the GPU.
# ho = this session's build (handover on by default; off with --set gpu.engine_handover=false);
# new = bf37602's nvm-block-bench (the engine before handover). The GPU tests of the handover
# build (with the new Handover tests), memcheck on one of them, then the 10-SSD 1 GiB point,
# the 4 GiB point, QD1 and a 4 KiB point, handover on / off / bf37602, alternated.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stage2.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $OUT/t/nvidia-smi.csv 2>&1
BIN=$W/stage2/tests OUT=$OUT/t/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/t/tests.log 2>&1
echo "== tests rc=$? $((SECONDS-T0)) s"; grep -E "^== |PASSED|FAILED|handover" $OUT/t/tests.log | head -40
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
timeout 200 $CS --tool memcheck $W/stage2/tests/emulated_drives_test --gtest_filter='Drives/Handover.*/on_emulator' > $OUT/t/memcheck.txt 2>&1
echo "== memcheck rc=$? $((SECONDS-T0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED|handovers" $OUT/t/memcheck.txt | head
B=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --io-size 512 --threads 1048576)
O10=(--ssds 10 --model optane-p5800x --set storage.media.size_bytes=1073741824 --ios 67108864)
I4=(--model ideal --set storage.media.size_bytes=4294967296 --ios 16777216)
QD1=(--backend emulated --pairs 1 --depth 64 --threads 1 --outstanding 1 --repeat 3 --ios 20000 --io-size 512)
OFF=(--set gpu.engine_handover=false)
run() { # name binary protocol args...
  local n=$1 b=$2 pr=$3; shift 3
  timeout 120 $W/stage2/$b/nvm-block-bench "$@" --set storage.protocol=$pr --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  (read|write)' $OUT/t/$n.txt | tail -1) ho=$(grep -o '"engine_handovers": *[0-9]*' $OUT/t/$n.json | head -1)"
  grep -E "repeat|ceiling" $OUT/t/$n.txt | head -4
}
for r in 1 2; do
  run emu10_new_$r new emulator "${B[@]}" "${O10[@]}" --measure-ceilings
  run emu10_ho_$r tests emulator "${B[@]}" "${O10[@]}" --measure-ceilings
  run emu10_off_$r tests emulator "${B[@]}" "${O10[@]}" "${OFF[@]}" --measure-ceilings
done
run hw10_ho tests hardware "${B[@]}" "${O10[@]}" --measure-ceilings
run hw10_off tests hardware "${B[@]}" "${O10[@]}" "${OFF[@]}" --measure-ceilings
run emu4g_new new emulator "${B[@]}" "${I4[@]}" --measure-ceilings
run emu4g_ho tests emulator "${B[@]}" "${I4[@]}" --measure-ceilings
run emu4g_off tests emulator "${B[@]}" "${I4[@]}" "${OFF[@]}" --measure-ceilings
for pr in emulator hardware; do
  run qd1null_${pr}_new new $pr "${QD1[@]}" --model null
  run qd1null_${pr}_ho tests $pr "${QD1[@]}" --model null
  run qd1opt_${pr}_new new $pr "${QD1[@]}" --model optane-p5800x
  run qd1opt_${pr}_ho tests $pr "${QD1[@]}" --model optane-p5800x
done
K4=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --io-size 4096 --set storage.lba_size=4096 --threads 1048576 --model optane-p5800x --ios 4194304)
run k4_1_new new emulator "${K4[@]}" --ssds 1
run k4_1_ho tests emulator "${K4[@]}" --ssds 1
run k4_10_new new emulator "${K4[@]}" --ssds 10
run k4_10_ho tests emulator "${K4[@]}" --ssds 10
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
