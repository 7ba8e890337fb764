#!/bin/bash
# Session 2026-11-29 (08:01-11:01), call 4: where the time goes at HEAD's engine (a66a141 = b1d65e2's
# engine code). nbb-ep: engine-profile.patch made again on b1d65e2 (the handover's note_turn and
# hand_over kept in the profiled loop); nbb-qp: queue-profile.patch on b1d65e2. 1) QD1 on `null`,
# both protocols: stageH, engine profile, queue profile. 2) the 8-SSD Figure 4 points that 32 x 8
# loses (4 KiB and 512 B reads, 64K threads, hardware protocol, 256 MiB each) and the 10 GiB point
# (emulator protocol), at 16 x 16 and 32 x 8, with the engine profile (and the queue profile and
# stageH at the 4 KiB point). About 3 minutes.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stageH.tar.xz
H=$W/stageH/nvm-block-bench; P=build/carry/prof/nbb-ep; Q=build/carry/prof/nbb-qp
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/p
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $OUT/p/nvidia-smi.csv 2>&1
QD1=(--backend emulated --pairs 1 --depth 64 --threads 1 --outstanding 1 --repeat 3 --ios 20000 --io-size 512 --model null)
F4=(--config configs/block/optane-x4-512b-randread.json --set storage.media.size_bytes=268435456 --set workload.ios=0 --set workload.duration_s=0.25 --set storage.ssd_count=8 --set workload.threads=65536 --set workload.op=read --repeat 3)
T10=(--backend emulated --pairs 128 --depth 1024 --outstanding 1 --repeat 3 --io-size 512 --threads 1048576 --set storage.protocol=emulator --ssds 10 --model optane-p5800x --set storage.media.size_bytes=1073741824 --ios 67108864)
run() { # name binary args...
  local n=$1 b=$2; shift 2
  timeout 120 $b "$@" --report $OUT/p/$n.json > $OUT/p/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  (read|write)' $OUT/p/$n.txt | head -1 | cut -c1-160)"
  grep -E 'engine profile|queue profile' $OUT/p/$n.txt | cut -c1-400
}
shape() { echo --set gpu.engine_blocks=${1%x*} --set gpu.engine_warps_per_block=${1#*x}; }
for proto in emulator hardware; do
  for b in H P Q; do run qd1_${proto}_$b ${!b} "${QD1[@]}" --set storage.protocol=$proto; done
done
for r in 1 2; do
  for sh in 16x16 32x8; do
    run f4k_${sh}_H_$r $H "${F4[@]}" --set workload.io_size=4096 $(shape $sh)
    run f4k_${sh}_P_$r $P "${F4[@]}" --set workload.io_size=4096 $(shape $sh)
  done
done
for sh in 16x16 32x8; do
  run f4k_${sh}_Q $Q "${F4[@]}" --set workload.io_size=4096 $(shape $sh)
  run f512_${sh}_P $P "${F4[@]}" --set workload.io_size=512 $(shape $sh)
  run t10_${sh}_P $P "${T10[@]}" $(shape $sh)
done
tar -C $OUT -czf $OUT/p.tgz p && rm -rf $OUT/p
echo "== all $((SECONDS-T0)) s"
