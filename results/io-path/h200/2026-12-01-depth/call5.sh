#!/bin/bash
# Call 5 (as run): E3 (call 4's best: only the engine's stores of moved data evict-first) as it
# would be kept, through libcu++ (cuda::ptx::st_L2_cache_hint with access_property::streaming's
# policy: e3p), against b17646b; then the same stores as __stcs (e3s) against e3p plus the
# engine's SQ entry loads evict-first and L1 no-allocate (e4: the entries it has fetched leave the
# L2 first). 3 points, 2 rounds each pair, hardware protocol.
set -u
tar xJf build/carry/t6.tar.xz -C build/carry
B=build/carry/t6
O=$OUT/call5
mkdir -p "$O"
nvidia-smi > "$O/nvidia-smi.txt" 2>&1
pair() {  # old new
  OLD=$B/$1 NEW=$B/$2 ROUNDS=2 OUT=$O/$1-$2 TABLE_PROTOCOL=hardware \
    POINTS="table_optane10_1g table_ideal_512_4g f4_512_1024" \
    scripts/gpu/regression-points.sh > "$O/$1-$2.txt" 2>&1
  grep '^==' "$O/$1-$2.txt"
}
pair base e3p
pair e3s e4
tar czf "$OUT/call5.tgz" -C "$OUT" call5
