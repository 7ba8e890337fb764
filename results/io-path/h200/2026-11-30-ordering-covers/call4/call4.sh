# Call 4 (device tool, one H200), from the repository root. K = 241c97c's cache-bench and
# nvm-block-bench (before), F = e3cdf03's (the application's reads cover the ordering). The
# cache's miss path (queue_storage_ref takes the mark too), hardware protocol: cache-bench-miss's
# optane_512 random point (4 x optane, 512 B lines, 1M threads, cold) and ideal_4k random point
# (4 x ideal, pinned host media, 4 KiB lines, ceilings in the same process), K and F alternated,
# 2 rounds; then Figure 4's 10-SSD 512 B reads at 1K threads (the one job where F read lower,
# -1.5 % in call 2), K and F alternated, 3 rounds (a round is skipped past 480 s).
set -u
T0=$SECONDS
cd build/carry && tar xJf kf.tar.xz && cd ../..
export CUDA_MODULE_LOADING=EAGER
mkdir -p $OUT/c $OUT/f4
for round in 1 2; do
  for v in K F; do
    [ $((SECONDS - T0)) -gt 400 ] && continue
    timeout 150 build/carry/$v/cache-bench --config configs/cache/optane-x4-cold-512b-miss.json \
      --set workload.pattern=random --repeat 3 --report $OUT/c/r$round-$v-optane512.json \
      > $OUT/c/r$round-$v-optane512.txt 2>&1 || echo "c $v optane rc=$?"
    timeout 150 build/carry/$v/cache-bench --config configs/cache/optane-x4-cold-512b-miss.json \
      --set storage.model=ideal --set storage.media.size_bytes=2147483648 \
      --set storage.media.kind=host --set cache.capacity=2147483648 \
      --set cache_bench.elements=1073741824 --set cache.line_size=4096 \
      --set cache_bench.coarsening=512 --set workload.pattern=random --measure-ceilings \
      --repeat 3 --report $OUT/c/r$round-$v-ideal4k.json > $OUT/c/r$round-$v-ideal4k.txt 2>&1 \
      || echo "c $v ideal rc=$?"
  done
done
echo "== cache $((SECONDS-T0)) s"
for round in 1 2 3; do
  for v in K F; do
    [ $((SECONDS - T0)) -gt 480 ] && continue
    timeout 60 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
      --set storage.ssd_count=10 --set storage.media.size_bytes=268435456 --set workload.ios=0 \
      --set workload.duration_s=0.25 --repeat 3 --io-size 512 --threads 1024 \
      --report $OUT/f4/r$round-$v.json > $OUT/f4/r$round-$v.txt 2>&1 || echo "f4 $v rc=$?"
  done
done
echo "== all $((SECONDS-T0)) s"
cd $OUT && tar czf c4.tgz c f4 && rm -rf c f4
