# Call 5 (device tool, one H200), from the repository root, at 794fd0c (staged on the dev
# machine: nvm-block-bench, cache-bench, cache_bench_gpu_test): cache-bench's GPU tests (the
# engine section's new keys), then configs/sweeps/engine-footprint.json in one command.
set -u
mkdir -p /tmp/s && tar xJf build/carry/bin.tar.xz -C /tmp/s
TESTS=cache_bench_gpu_test BIN=/tmp/s/bin OUT=$OUT/tests bash scripts/gpu/run-gpu-tests.sh \
  > $OUT/tests.txt 2>&1
/usr/bin/python3 scripts/sweep configs/sweeps/engine-footprint.json --bin /tmp/s/bin \
  --out $OUT/engine-footprint --gpu h200 --session 2026-11-29-794fd0c > $OUT/sweep.log 2>&1
cd $OUT && tar czf c5.tgz tests tests.txt engine-footprint sweep.log
