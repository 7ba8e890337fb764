#!/bin/bash
# Session 2026-11-29 (10:17-13:17), call A: the two prepared ordering variants against the default.
# nextA.tar.xz: base/ (HEAD 9eac9f8 = a66a141's code), pip/ (ordering-pipelined.patch), ow10/
# (ordering-warps.patch), both/ (both patches). 1) pip's and ow10's GPU tests; 2) base, pip, ow10,
# both alternated, 2 rounds: the 10 GiB point, ideal 512 B over 4 GiB, QD1 null, all hardware
# protocol; 3) Figure 4's sweep at 10 and 8 SSDs (as nbb-fig4.json runs it) per build; 4) cache-bench
# hot points base vs pip (regression-points.sh).
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/nextA.tar.xz
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
O=$OUT/a; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $O/nvidia-smi.csv 2>&1
for v in pip ow10; do
  TESTS="$(cd $W/$v && ls *_test | tr '\n' ' ')" BIN=$W/$v OUT=$O/tests_$v bash scripts/gpu/run-gpu-tests.sh > $O/tests_$v.log 2>&1
  echo "== tests $v rc=$? $((SECONDS-T0)) s"; grep -E "^== |FAILED" $O/tests_$v.log | head -20
done
GiB=1073741824
BASE=(--backend emulated --pairs 128 --depth 1024 --threads 1048576 --outstanding 1 --repeat 3)
pt() { case $1 in
  t10) echo "${BASE[@]}" --ssds 10 --model optane-p5800x --io-size 512 --set storage.media.size_bytes=$GiB --ios 67108864 --measure-ceilings ;;
  i4g) echo "${BASE[@]}" --model ideal --io-size 512 --set storage.media.size_bytes=$((4 * GiB)) --ios 8388608 --measure-ceilings ;;
  qd1) echo --backend emulated --pairs 1 --depth 64 --threads 1 --outstanding 1 --repeat 3 --ios 20000 --io-size 512 --model null ;;
esac; }
run() { # name binary point protocol
  [ $((SECONDS-T0)) -gt 480 ] && { echo "== $1 skipped (time)"; return; }
  timeout 120 $2 $(pt $3) --set storage.protocol=$4 --report $O/$1.json > $O/$1.txt 2>&1
  echo "== $1 rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $O/$1.txt | head -1 | cut -c1-170)"
}
for r in 1 2; do
  for b in base pip ow10 both; do
    run t10hw_${b}_$r $W/$b/nvm-block-bench t10 hardware
    run i4ghw_${b}_$r $W/$b/nvm-block-bench i4g hardware
    run qd1hw_${b}_$r $W/$b/nvm-block-bench qd1 hardware
  done
done
f4() { # name binary ssds
  [ $((SECONDS-T0)) -gt 520 ] && { echo "== $1 skipped (time)"; return; }
  timeout 60 $2 --config configs/block/optane-x4-512b-randread.json --set storage.media.size_bytes=268435456 --set workload.ios=0 --set workload.duration_s=0.25 --set storage.ssd_count=$3 --sweep workload.io_size=512,4096 --sweep workload.op=read,write --sweep workload.threads=1024,4096,16384,65536,262144,1048576 --repeat 3 --report $O/$1.json --csv $O/$1.csv > $O/$1.txt 2>&1
  echo "== $1 rc=$? $((SECONDS-T0)) s"
}
for n in 10 8; do for b in base pip ow10; do f4 f4_${n}_$b $W/$b/nvm-block-bench $n; done; done
if [ $((SECONDS-T0)) -lt 540 ]; then
  OLD=$W/base NEW=$W/pip OUT=$O/cb ROUNDS=1 POINTS="cb_hot_reuse cb_hot_coalesced" timeout $((590-SECONDS+T0)) bash scripts/gpu/regression-points.sh > $O/cb.log 2>&1
  echo "== cb rc=$? $((SECONDS-T0)) s"
fi
tar -C $OUT -czf $OUT/a.tgz a && rm -rf $O
echo "== all $((SECONDS-T0)) s"
