# Call 7 (device tool, one H200), from the repository root: the one-command record of the
# placement's trade, scripts/sweep configs/sweeps/engine-placement.json with H (c61a382's
# nvm-block-bench, staged): the 10 GiB and 4 GiB points, both protocols, the scheduler's placement
# and first-sms, 3 runs a point. Its folder: results/engine-placement/h200/2026-11-30-c61a382/.
set -u
T0=$SECONDS
cd build/carry && tar xJf hn.tar.xz && cd ../..
export CUDA_MODULE_LOADING=EAGER
/usr/bin/python3 scripts/sweep configs/sweeps/engine-placement.json --bin build/carry/H \
  --out $OUT/sweep --gpu h200 --session 2026-11-30-c61a382 > $OUT/sweep.log 2>&1
echo "== sweep rc=$? $((SECONDS-T0)) s" >> $OUT/sweep.log
cd $OUT && tar czf c7.tgz sweep && rm -rf sweep
