# Call 5 (device tool, one H200), from the repository root: H (before), K (kept) and KS0 (K with
# the submission's steps in H's order: the marker looked at before the tail's word, the SQ head
# before the markers) in turn. Figure 4's two 10-SSD points where K read lower in call 4 (512 B
# reads at 4K threads, 4 KiB reads at 1K threads; hardware protocol), 3 rounds; QD1 `null`, one
# queue pair and the 128-queue `null` point, both protocols, 1 round; and the two points whose
# single-process percentiles perf-check flagged in call 3 (`ideal_512_1g` hardware,
# `optane10_256m` emulator), H and K, 2 rounds.
set -u
cd build/carry && tar xJf bin.tar.xz && mv bin H && tar xJf k.tar.xz && tar xJf ks0.tar.xz && cd ../..
mkdir -p $OUT/f4 $OUT/n
for round in 1 2 3; do
  for v in H K KS0; do
    for st in 512:4096 4096:1024; do
      s=${st%:*} t=${st#*:}
      timeout 120 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
        --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
        --set workload.duration_s=0.25 --repeat 3 --io-size $s --threads $t \
        --report $OUT/f4/r$round-$v-$s-$t.json > $OUT/f4/r$round-$v-$s-$t.txt 2>&1 || echo "f4 $v $s rc=$?"
    done
  done
done
for v in H K KS0; do
  for p in emulator hardware; do
    timeout 120 build/carry/$v/nvm-block-bench --backend emulated --pairs 128 --depth 1024 \
      --threads 1048576 --outstanding 1 --repeat 3 --model null --io-size 512 --ios 33554432 \
      --set storage.protocol=$p --report $OUT/n/$v-null128-$p.json > $OUT/n/$v-null128-$p.txt 2>&1
    BIN=build/carry/$v OUT=$OUT/q/$v PROTOCOL=$p POINTS="qd1_null oneqp_null" \
      bash scripts/gpu/io-path-table.sh > $OUT/q-$v-$p.log 2>&1
  done
done
for round in 1 2; do
  for v in H K; do
    BIN=build/carry/$v OUT=$OUT/p/r$round/$v PROTOCOL=hardware POINTS="ideal_512_1g" \
      bash scripts/gpu/io-path-table.sh > $OUT/p-r$round-$v-hw.log 2>&1
    BIN=build/carry/$v OUT=$OUT/p/r$round/$v PROTOCOL=emulator POINTS="optane10_256m" \
      bash scripts/gpu/io-path-table.sh > $OUT/p-r$round-$v-emu.log 2>&1
  done
done
cd $OUT && tar czf c5.tgz f4 n q p q-*.log p-*.log && rm -rf f4 n q p q-*.log p-*.log
