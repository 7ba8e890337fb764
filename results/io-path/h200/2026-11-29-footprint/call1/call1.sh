# Call 1 (device tool, one H200), from the repository root; the probe built on the dev machine:
#   nvcc -O3 -std=c++20 -arch=sm_90 -o build/carry/pinned-footprint \
#     scripts/gpu/probes/pinned-footprint.cu -lcuda && strip build/carry/pinned-footprint
cd $OUT && ( cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag; grep -i huge /proc/meminfo; cat /proc/cmdline; ls /sys/class/iommu; id; nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv; nvidia-smi -q | grep -i -A2 "addressing\|bar1" | head -20; numactl -H 2>/dev/null | head -5; ls /sys/devices/system/node/ ) > env.txt 2>&1; cd - >/dev/null
./build/carry/pinned-footprint 5 512 1 4 10 16 > $OUT/p512.txt 2>&1
./build/carry/pinned-footprint 5 4096 4 10 > $OUT/p4k.txt 2>&1
