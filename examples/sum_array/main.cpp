// sum_array: sums a bam::array<std::uint64_t> stored on emulated NVMe SSDs and compares it with
// the plain sum. Exit status 1 on a mismatch. Usage: sum_array [elements] [--host-only]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sum.hpp"

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
  bool ok = sum_on_host(n);
#if SUM_ARRAY_GPU
  if (gpu) ok = sum_on_gpu(n) && ok;
#else
  if (gpu) std::printf("gpu: skipped (bamkit was built without CUDA)\n");
#endif
  return ok ? 0 : 1;
}
