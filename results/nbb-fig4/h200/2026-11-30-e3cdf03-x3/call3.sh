# Call 3 (device tool, one H200), from the repository root. F = e3cdf03 (the application's reads
# cover the ordering; P2 of call 2 as committed), K = 241c97c's nvm-block-bench (before).
# 1) Figure 4 (scripts/sweep configs/sweeps/nbb-fig4.json: 1-10 SSDs, 3 processes each) with F;
# 2) issue 19's table in the hardware protocol with F; 3) QD1 null and optane, K and F alternated,
# 2 rounds; 4) Figure 4's 8- and 4-SSD 512 B reads at 1K and 4K threads, K and F alternated, while
# the call has time left (a job is skipped past 545 s).
set -u
T0=$SECONDS
cd build/carry && tar xJf kn.tar.xz && tar xJf fn.tar.xz && cd ../..
export CUDA_MODULE_LOADING=EAGER
/usr/bin/python3 scripts/sweep configs/sweeps/nbb-fig4.json --bin build/carry/F --out $OUT/fig4 \
  --gpu h200 --session 2026-11-30-e3cdf03-x3 --stop-after 400 > $OUT/sweep.log 2>&1
echo "== sweep $((SECONDS-T0)) s" >> $OUT/sweep.log
BIN=build/carry/F OUT=$OUT/t/F PROTOCOL=hardware bash scripts/gpu/io-path-table.sh > $OUT/t-F.log 2>&1
echo "== table $((SECONDS-T0)) s" >> $OUT/sweep.log
for round in 1 2; do
  for v in K F; do
    BIN=build/carry/$v OUT=$OUT/q/r$round/$v PROTOCOL=hardware POINTS="qd1_null qd1_optane" \
      bash scripts/gpu/io-path-table.sh > $OUT/q-r$round-$v.log 2>&1
  done
done
echo "== qd1 $((SECONDS-T0)) s" >> $OUT/sweep.log
mkdir -p $OUT/f4
for n in 8 4; do
  for t in 1024 4096; do
    for v in K F; do
      [ $((SECONDS - T0)) -gt 545 ] && continue
      timeout 60 build/carry/$v/nvm-block-bench --config configs/block/optane-x4-512b-randread.json \
        --set storage.ssd_count=$n --set storage.media.size_bytes=268435456 --set workload.ios=0 \
        --set workload.duration_s=0.25 --repeat 3 --io-size 512 --threads $t \
        --report $OUT/f4/$v-$n-512-$t.json > $OUT/f4/$v-$n-512-$t.txt 2>&1 || echo "f4 $v $n $t rc=$?"
    done
  done
done
echo "== all $((SECONDS-T0)) s" >> $OUT/sweep.log
cd $OUT && tar czf fig4.tgz fig4 && tar czf c3.tgz t q f4 t-F.log q-*.log && rm -rf fig4 t q f4 t-F.log q-*.log
