#!/bin/bash
# Call 3 of the exclusive queue access (a queue pair to itself, held: bam::queue_hold, after the review: a failed queue checked before each held submission, no device fence before the doorbells that fence at system scope): every GPU test and
# compute-sanitizer on the queue test, then QD1 (issue 19's two QD1 points) and threads alone on
# their queue pairs (null drive, thread mapping, one queue pair a thread), gpu.queue_access auto
# (exclusive) against shared, alternated, in both protocols; one binary (its shared kernels'
# PTX equals HEAD's, 415b0eb). Run from the repository root with the staged binaries in $S.
set -u
S=${S:-build/carry/s3}
O=$OUT/c3
mkdir -p "$O"
export CUDA_MODULE_LOADING=EAGER
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
BIN=$S OUT=$O/tests bash scripts/gpu/run-gpu-tests.sh > "$O/tests.txt" 2>&1
echo "tests rc=$?"; grep -E "^== " "$O/tests.txt"
BIN=$S OUT=$O/sanitize TOOLS="memcheck synccheck" NAMES=queue_outstanding_gpu_test \
  bash scripts/gpu/sanitize.sh > "$O/sanitize.txt" 2>&1
echo "sanitize rc=$?"; tail -n 3 "$O/sanitize.txt"
# README's QD1 example, as written there.
"$S/nvm-block-bench" --backend emulated --model null --pairs 1 --depth 64 \
  --threads 1 --outstanding 1 --io-size 512 --ios 20000 --set storage.protocol=emulator \
  > "$O/readme-example.txt" 2>&1
echo "readme example rc=$?"; grep -E '^  (read|total)|lat \(' "$O/readme-example.txt" | head -4
for round in 1 2 3; do
  for access in shared auto; do
    for proto in emulator hardware; do
      BIN=$S OUT=$O/qd1-r$round-$access PROTOCOL=$proto POINTS="qd1_null qd1_optane" \
        EXTRA="--set gpu.queue_access=$access" bash scripts/gpu/io-path-table.sh | sed "s/^/$access r$round /"
    done
  done
done
for round in 1 2; do
  for access in auto shared; do
    for proto in emulator hardware; do
      for t in 8 128 1024 4096; do
        d=$O/alone-r$round-$access-$proto; mkdir -p "$d"
        timeout 120 "$S/nvm-block-bench" --backend emulated --model null --pairs $t --depth 64 \
          --threads $t --outstanding 1 --io-size 512 --ios 200000 --repeat 3 \
          --set gpu.queue_mapping=thread --set gpu.queue_access=$access \
          --set storage.protocol=$proto --report "$d/t$t.json" > "$d/t$t.txt" 2>&1
        echo "$access $proto t=$t r$round rc=$? $(grep -E '^  (read|total)' "$d/t$t.txt" | tail -n 1)"
      done
    done
  done
done
cd "$OUT" && tar czf c3.tgz c3 && rm -rf c3
