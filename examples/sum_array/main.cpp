// sum_array: lays n 64-bit numbers out on emulated NVMe SSDs and sums them through a bamkit array
// (the BaM software cache in front of the SSDs): with CPU threads, and with a GPU kernel where
// bamkit has CUDA and a GPU is present. Exit status 1 when a sum differs from the plain one.
// Usage: sum_array [elements] [--host-only]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sum.hpp"

std::vector<std::uint64_t> values(std::uint64_t n) {
  std::vector<std::uint64_t> v(n);
  for (std::uint64_t i = 0; i < n; ++i)
    v[i] = value(i);
  return v;
}

std::uint64_t plain_sum(const std::vector<std::uint64_t>& v) {
  std::uint64_t s = 0;
  for (const std::uint64_t x : v)
    s += x;
  return s;
}

bam::run_config ssds_for(std::uint64_t n, bam::backend_kind backend) {
  bam::run_config c;
  c.storage.backend = backend;
  c.storage.ssd_count = 4;
  c.storage.model = {"ideal", std::nullopt};  // GPU-emulated SSDs: no timing limit
  // Room for the data and the manifest on the 4 SSDs, in whole 64 KiB stripe units.
  c.storage.media.size_bytes = (n * 8 / 4 / 65536 + 2) * 65536;
  c.queues.pairs_per_ssd = backend == bam::backend_kind::host ? 4 : 32;
  c.queues.depth = 256;
  c.cache.line_size = 4096;
  c.cache.capacity = 1u << 20;
  return c;
}

int main(int argc, char** argv) {
  std::uint64_t n = 1u << 20;
  bool gpu = true;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--host-only") == 0) {
      gpu = false;
    } else {
      n = std::strtoull(argv[a], nullptr, 10);
      if (n == 0) {
        std::fprintf(stderr, "usage: sum_array [elements > 0] [--host-only]\n");
        return 2;
      }
    }
  }
  const std::vector<std::uint64_t> v = values(n);
  bool ok = sum_on_host(v);
#if SUM_ARRAY_GPU
  if (gpu) ok = sum_on_gpu(v) && ok;
#else
  if (gpu) std::printf("gpu: skipped (bamkit was built without CUDA)\n");
#endif
  return ok ? 0 : 1;
}
