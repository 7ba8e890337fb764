# Sourced by scripts/gpu/cache-bench-*.sh: runs cache-bench from $BIN (default: this script's
# folder when the binary is there, else .), writes every report, CSV and log under $OUT.
TOOL=cache-bench
SUMMARY="cache:.*accesses/s|repeat:"
source "$(dirname "${BASH_SOURCE[0]}")/bench-common.sh"
CB="$EXE"
