#!/bin/bash
# Session 2026-11-29 (04:06-07:06), call 5: Figure 4's low-thread reads were 1-2.3 % under
# bf37602's (call 4) with no handover in them: is it the handover's per-turn work (gone with
# gpu.engine_handover=false, same binary) or the code's shape? 10 and 4 SSDs x 512 B reads at 1K
# and 4K threads, Figure 4's setup, 437af2f on / off and bf37602, 3 rounds alternated.
set -u
W=/tmp/wk; rm -rf $W; mkdir -p $W && tar -C $W -xJf build/carry/stage5.tar.xz
T0=$SECONDS
mkdir -p $OUT/t
F=(--config configs/block/optane-x4-512b-randread.json --set storage.media.size_bytes=268435456 --set workload.ios=0 --set workload.duration_s=0.25 --sweep workload.threads=1024,4096 --repeat 3)
run() { # name binary ssds extra...
  local n=$1 b=$2 s=$3; shift 3
  timeout 60 $W/stage5/$b/nvm-block-bench "${F[@]}" --set storage.ssd_count=$s "$@" --report $OUT/t/$n.json > $OUT/t/$n.txt 2>&1
  echo "== $n rc=$? $((SECONDS-T0)) s $(grep -E '^  read' $OUT/t/$n.txt | cut -c1-80 | tr '\n' '|')"
}
for r in 1 2 3; do
  for s in 10 4; do
    run s${s}_new_$r new $s
    run s${s}_on_$r ho $s
    run s${s}_off_$r ho $s --set gpu.engine_handover=false
  done
done
tar -C $OUT -czf $OUT/t.tgz t && rm -rf $OUT/t
echo "== all $((SECONDS-T0)) s"
