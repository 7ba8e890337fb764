#!/bin/bash
# The cuFile (GPUDirect Storage) baseline of nvm-block-bench on a GPU machine, ~1 minute: 100,000
# verified 4 KiB random reads, 50,000 verified 64 KiB mixed I/Os, and a read sweep 4 KiB ... 1 MiB
# (sequential and random, 16 threads, 0.5 s per point, median of 3) over a 1 GiB file.
# Needs a build with the cufile backend: configure with -DBAM_WITH_CUFILE=ON (and
# -DBAM_CUFILE_ROOT=<dir with include/cufile.h and lib/libcufile.so> when GDS is not under
# /usr/local/cuda), and libcufile.so on the loader's path at run time.
# Without the nvidia-fs module cuFile runs in its compatibility mode (POSIX I/O into host bounce
# buffers, then copies to the GPU): the numbers are then not GPUDirect's; the report's
# bamkit.stats.cufile.nvfs_version says "0.0" in that case.
# FAKE_UDEV=1: on a VM without a udev database cuFileHandleRegister fails ("unable to get volume
# attributes"); this writes one entry for the block device holding MEDIA_DIR (root needed).
# A script rather than a sweep spec (configs/sweeps/) because of what it prepares: the loader's
# path to libcufile and, with FAKE_UDEV, a udev entry.
# Usage: BIN=folder-with-nvm-block-bench OUT=results/nbb-cufile/<gpu>/<date>-<commit> \
#   [MEDIA_DIR=dir] [FAKE_UDEV=1] scripts/gpu/nbb-cufile.sh
source "$(dirname "$0")/nbb-common.sh"
: "${MEDIA_DIR:=$PWD}" "${FAKE_UDEV:=0}"
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64"
F="$MEDIA_DIR/nbb-cufile-media.dat"
if [ "$FAKE_UDEV" = 1 ]; then
  dev=$(stat -c '%d' "$MEDIA_DIR")
  mkdir -p /run/udev/data
  printf 'E:ID_FS_USAGE=filesystem\nE:ID_FS_TYPE=%s\nE:DEVTYPE=disk\n' "$(df --output=fstype "$MEDIA_DIR" | tail -n 1)" \
    > "/run/udev/data/b$((dev >> 8)):$((dev & 255))"
fi
C=(--backend cufile --set storage.media.kind=file --media-path "$F"
   --set storage.media.size_bytes=1073741824 --threads 16 --outstanding 1)
run cufile_read_verify 60 "${C[@]}" --ios 100000 --io-size 4096 --verify
run cufile_mixed_verify 60 "${C[@]}" --ios 50000 --io-size 65536 --op mixed --verify
run cufile_read_sweep 120 "${C[@]}" --ios 0 --duration 0.5 --repeat 3 \
  --sweep workload.pattern=sequential,random --sweep workload.io_size=4096,16384,65536,262144,1048576
rm -f "$F"
