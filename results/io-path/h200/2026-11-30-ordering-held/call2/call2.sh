#!/bin/bash
# Call 2 of the ordering read through a hold: the final code (queue_use::exclusive a template
# argument of the emulated drives' ordered queue set; call 1 ran a flag chosen at run time): every
# GPU test and compute-sanitizer (memcheck, synccheck) on the queue tests with the new build;
# then the new build against dff7c2f's (the build before it: the same code as 1715a37's tools),
# alternated, 2 rounds, at QD1 and the points whose hardware-protocol kernels the change touches
# (nvm-block-bench's shared kernel, Figure 4 jobs, the cache's miss and hot paths, the 10 GiB
# point); storage protocol hardware (the default) everywhere. Run from the repository root with
# build/carry/h2.tar.xz carried (new/: the staged GPU tests and tools, old/: dff7c2f's tools).
set -u
O=$OUT/c2
B=/tmp/h2
mkdir -p "$O" "$B"
tar xJf build/carry/h2.tar.xz -C "$B"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
BIN=$B/new OUT=$O/tests bash scripts/gpu/run-gpu-tests.sh > "$O/tests.txt" 2>&1
echo "tests rc=$?"; grep -E "^== " "$O/tests.txt"
BIN=$B/new OUT=$O/sanitize TOOLS="memcheck synccheck" \
  NAMES="host_controller_gpu_test queue_outstanding_gpu_test" \
  bash scripts/gpu/sanitize.sh > "$O/sanitize.txt" 2>&1
echo "sanitize rc=$?"; tail -n 5 "$O/sanitize.txt"
OLD=$B/old NEW=$B/new OUT=$O/points ROUNDS=2 \
  POINTS="table_qd1_null table_qd1_optane nbb_null_512 f4_512_1024 f4_4k_1024 f4_512_4096 cb_miss_optane cb_hot_reuse table_optane10_1g" \
  bash scripts/gpu/regression-points.sh > "$O/points.txt" 2>&1
echo "points rc=$?"
/usr/bin/python3 scripts/gpu/regression-table.py "$O/points" > "$O/table.md" 2>&1
cat "$O/table.md"
cd "$OUT" && tar czf c2.tgz c2 && rm -rf c2
