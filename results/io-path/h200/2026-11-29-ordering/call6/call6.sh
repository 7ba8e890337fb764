#!/bin/bash
# Session 2026-11-29 (08:01-11:01), call 6: f6249f4 (the ordering queues on an engine warp of their
# own) against stageH's nvm-block-bench (a66a141, the engine before). stageO.tar.xz: every GPU test
# and tool built at f6249f4 (stO/) and stageH's nvm-block-bench. 1) every GPU test at f6249f4;
# 2) alternated, 2 rounds: the 10 GiB point (hardware, then emulator), ideal 512 B over 4 GiB
# (hardware), 10 x 256 MiB (hardware), QD1 null (hardware); 3) Figure 4's sweep per SSD count as
# nbb-fig4.json runs it, one process each: 8 and 10 SSDs alternated, then 1, 2, 4 SSDs new only.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stageO.tar.xz
N=$W/stO/nvm-block-bench; H=$W/stageH/nvm-block-bench
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/o
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $OUT/o/nvidia-smi.csv 2>&1
BIN=$W/stO OUT=$OUT/o/tests bash scripts/gpu/run-gpu-tests.sh > $OUT/o/tests.log 2>&1
echo "== tests rc=$? $((SECONDS-T0)) s"; grep -E "^== |FAILED" $OUT/o/tests.log | head -30
GiB=1073741824
BASE=(--backend emulated --pairs 128 --depth 1024 --threads 1048576 --outstanding 1 --repeat 3)
pt() { case $1 in
  t10) echo "${BASE[@]}" --ssds 10 --model optane-p5800x --io-size 512 --set storage.media.size_bytes=$GiB --ios 67108864 --measure-ceilings ;;
  t256) echo "${BASE[@]}" --ssds 10 --model optane-p5800x --io-size 512 --set storage.media.size_bytes=$((GiB / 4)) --ios 67108864 --measure-ceilings ;;
  i4g) echo "${BASE[@]}" --model ideal --io-size 512 --set storage.media.size_bytes=$((4 * GiB)) --ios 8388608 --measure-ceilings ;;
  qd1) echo --backend emulated --pairs 1 --depth 64 --threads 1 --outstanding 1 --repeat 3 --ios 20000 --io-size 512 --model null ;;
esac; }
run() { # name binary point protocol
  [ $((SECONDS-T0)) -gt 500 ] && { echo "== $1 skipped (time)"; return; }
  timeout 120 $2 $(pt $3) --set storage.protocol=$4 --report $OUT/o/$1.json > $OUT/o/$1.txt 2>&1
  echo "== $1 rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/o/$1.txt | head -1 | cut -c1-170)"
}
for r in 1 2; do
  for b in N H; do
    run t10hw_${b}_$r ${!b} t10 hardware
    run i4ghw_${b}_$r ${!b} i4g hardware
    run qd1hw_${b}_$r ${!b} qd1 hardware
  done
done
for b in N H; do run t10emu_$b ${!b} t10 emulator; run t256hw_$b ${!b} t256 hardware; done
f4() { # name binary ssds
  [ $((SECONDS-T0)) -gt 520 ] && { echo "== $1 skipped (time)"; return; }
  timeout 60 $2 --config configs/block/optane-x4-512b-randread.json --set storage.media.size_bytes=268435456 --set workload.ios=0 --set workload.duration_s=0.25 --set storage.ssd_count=$3 --sweep workload.io_size=512,4096 --sweep workload.op=read,write --sweep workload.threads=1024,4096,16384,65536,262144,1048576 --repeat 3 --report $OUT/o/$1.json --csv $OUT/o/$1.csv > $OUT/o/$1.txt 2>&1
  echo "== $1 rc=$? $((SECONDS-T0)) s"
}
f4 f4_10_N $N 10; f4 f4_10_H $H 10; f4 f4_8_N $N 8; f4 f4_8_H $H 8
f4 f4_1_N $N 1; f4 f4_2_N $N 2; f4 f4_4_N $N 4
tar -C $OUT -czf $OUT/o.tgz o && rm -rf $OUT/o
echo "== all $((SECONDS-T0)) s"
