#!/bin/bash
# Session 2026-11-29 (08:01-11:01), call 5: the hardware protocol's cost split (issue 19: "not
# measured apart"). nbb-split = b1d65e2 + protocol-split.patch (tools only; the engine is HEAD's):
# with storage.protocol=hardware, BAM_PROBE_PROTOCOL=M runs MMIO doorbells and system-scope
# completions without the ordering read, O device doorbells and polling with the ordering read;
# unset, the hardware protocol (H); storage.protocol=emulator is E. Points: the 10 GiB point
# (10 x optane, 1 GiB each), ideal 512 B over 4 GiB and 1 GiB, QD1 on null; 2 rounds, the four
# variants alternated. Then the engine profile (nbb-ep) at the 10 GiB point, hardware protocol.
set -u
S=build/carry/prof/nbb-split; P=build/carry/prof/nbb-ep
export CUDA_MODULE_LOADING=EAGER
T0=$SECONDS
mkdir -p $OUT/s
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv > $OUT/s/nvidia-smi.csv 2>&1
GiB=1073741824
BASE=(--backend emulated --pairs 128 --depth 1024 --threads 1048576 --outstanding 1 --repeat 3)
pt() { case $1 in
  t10) echo "${BASE[@]}" --ssds 10 --model optane-p5800x --io-size 512 --set storage.media.size_bytes=$GiB --ios 67108864 --measure-ceilings ;;
  i4g) echo "${BASE[@]}" --model ideal --io-size 512 --set storage.media.size_bytes=$((4 * GiB)) --ios 8388608 --measure-ceilings ;;
  i1g) echo "${BASE[@]}" --model ideal --io-size 512 --set storage.media.size_bytes=$GiB --ios 8388608 --measure-ceilings ;;
  qd1) echo --backend emulated --pairs 1 --depth 64 --threads 1 --outstanding 1 --repeat 3 --ios 20000 --io-size 512 --model null ;;
esac; }
run() { # name variant point [binary]
  local n=$1 v=$2 p=$3 b=${4:-$S} proto=hardware env=()
  [ $v = E ] && proto=emulator
  { [ $v = M ] || [ $v = O ]; } && env=(BAM_PROBE_PROTOCOL=$v)
  env "${env[@]}" timeout 150 $b $(pt $p) --set storage.protocol=$proto --report $OUT/s/$n.json > $OUT/s/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/s/$n.txt | head -1 | cut -c1-170) | $(grep -E 'repeat:|probe' $OUT/s/$n.txt | head -2 | cut -c1-150 | tr '\n' ' ')"
}
for r in 1 2; do
  for p in qd1 i1g i4g t10; do
    for v in E H M O; do run ${p}_${v}_$r $v $p; done
  done
done
run t10_H_prof H t10 $P
grep -E 'engine profile' $OUT/s/t10_H_prof.txt | head -3 | cut -c1-400
tar -C $OUT -czf $OUT/s.tgz s && rm -rf $OUT/s
echo "== all $((SECONDS-T0)) s"
