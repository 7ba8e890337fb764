#!/bin/bash
# Session of 2026-11-29 (06:35-), call 3. new = the working tree after 2e22c25 with the handover's
# rate bound (a warp gives at most one queue per total_warps / 4000 s, and none that soon after it
# took one: engine_handover::give_gap_ticks) and the automatic engine shape 32 x 8. old = stageN
# (2e22c25's code). Calls 1-2 found the handover bimodal: 4.4-4.7 K queues given away per run at
# 16 x 16 and 37.5 M, or 42-62 K and 36.0-36.7 M (16 x 16 once, 64 x 4 three times of three).
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stageN.tar.xz && tar -C $W -xJf build/carry/new3.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/t
for t in emulated_drives_test nbb_gpu_test; do
  NBB_BIN=$W/new3/nvm-block-bench timeout 300 $W/new3/$t > $OUT/t/$t.log 2>&1
  echo "== $t rc=$? $((SECONDS-T0)) s"; grep -E "PASSED|FAILED|given away" $OUT/t/$t.log | head -20
done
B=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --io-size 512 --threads 1048576 --measure-ceilings)
O10=(--ssds 10 --model optane-p5800x --set storage.media.size_bytes=1073741824 --ios 67108864)
I1=(--model ideal --set storage.media.size_bytes=1073741824 --ios 8388608)
I4=(--model ideal --set storage.media.size_bytes=4294967296 --ios 8388608)
run() { # name bin proto shape handover args...
  local n=$1 b=$2 pr=$3 sh=$4 ho=$5; shift 5
  timeout 120 $b "${B[@]}" --set storage.protocol=$pr --set gpu.engine_blocks=${sh%x*} --set gpu.engine_warps_per_block=${sh#*x} --set gpu.engine_handover=$ho "$@" --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/t/$n.txt | tail -1 | cut -c1-90) given=$(grep -o '"engine_handovers": *[0-9]*' $OUT/t/$n.json | head -1 | grep -o '[0-9]*$')"
}
O=$W/stageN/tests/nvm-block-bench; N=$W/new3/nvm-block-bench
for r in 1 2; do
  run e10_o16_on_$r $O emulator 16x16 true "${O10[@]}"
  run e10_n16_on_$r $N emulator 16x16 true "${O10[@]}"
  run e10_n32_on_$r $N emulator 32x8 true "${O10[@]}"
  run e10_n64_on_$r $N emulator 64x4 true "${O10[@]}"
  run e10_n32_off_$r $N emulator 32x8 false "${O10[@]}"
done
run h10_n32_on $N hardware 32x8 true "${O10[@]}"
run h10_n16_on $N hardware 16x16 true "${O10[@]}"
run h4_n32_on $N hardware 32x8 true "${I4[@]}"
run h4_n16_on $N hardware 16x16 true "${I4[@]}"
run h1_n32_on $N hardware 32x8 true "${I1[@]}"
# QD1 and Figure 4's low-thread reads (as call 5 of 2026-11-29-handover), 16 x 16 against 32 x 8
for pr in emulator hardware; do
  for sh in 16x16 32x8; do
    timeout 60 $N --backend emulated --pairs 1 --depth 64 --threads 1 --outstanding 1 --repeat 3 --ios 20000 --io-size 512 --model null --set storage.protocol=$pr --set gpu.engine_blocks=${sh%x*} --set gpu.engine_warps_per_block=${sh#*x} --report $OUT/t/qd1_${pr}_$sh.json > $OUT/t/qd1_${pr}_$sh.txt 2>&1
    echo "== qd1 $pr $sh $(grep -E '^  read' $OUT/t/qd1_${pr}_$sh.txt | cut -c1-120)"
  done
done
F=(--set storage.media.size_bytes=268435456 --set workload.ios=0 --set workload.duration_s=0.25 --sweep workload.threads=1024,4096 --repeat 3)
for s in 10 4; do
  for io in 512 4096; do
    for sh in 16x16 32x8; do
      n=f4_s${s}_${io}_$sh
      timeout 60 $N --config configs/block/optane-x4-512b-randread.json "${F[@]}" --set storage.ssd_count=$s --set workload.io_size=$io --set gpu.engine_blocks=${sh%x*} --set gpu.engine_warps_per_block=${sh#*x} --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
      echo "== $n rc=$? $(grep -E '^  read' $OUT/t/$n.txt | cut -c1-70 | tr '\n' '|')"
    done
  done
done
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
