# Sourced by scripts/gpu/nbb-cufile.sh (the figures' sweeps are specs: configs/sweeps/): runs
# nvm-block-bench from $BIN (default: this script's folder when the binary is there, else .),
# writes every report, CSV and log under $OUT.
TOOL=nvm-block-bench
SUMMARY="total:|repeat:"
source "$(dirname "${BASH_SOURCE[0]}")/bench-common.sh"
NBB="$EXE"
