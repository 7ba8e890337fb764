// sum_array: lays n 64-bit numbers out on emulated NVMe SSDs and sums them through a bamkit array
// (the BaM software cache in front of the SSDs): with CPU threads, and with a GPU kernel where
// bamkit has CUDA and a GPU is present. Exit status as bamkit's tools: 3 (bam::exit_io_errors)
// when an access could not read its element (an I/O error or timeout: the cache's error flag),
// 1 when a sum differs from the plain one, 2 for a bad command line.
// Usage: sum_array [elements] [--host-only]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bam/harness/exit_status.hpp"
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
  bool io_failed = false, differs = false;
  auto note = [&](sum_status s) {
    io_failed = io_failed || s == sum_status::io_failed;
    differs = differs || s == sum_status::differs;
  };
  note(sum_on_host(v));
#if SUM_ARRAY_GPU
  if (gpu) note(sum_on_gpu(v));
#else
  if (gpu) std::printf("gpu: skipped (bamkit was built without CUDA)\n");
#endif
  if (io_failed) return bam::exit_io_errors;
  return differs ? bam::exit_run_failed : bam::exit_ok;
}
