// bam/harness/gpu_ceilings.hpp: API. The GPU machine's ceilings a GPU benchmark run is bounded by
// (bamkit.ceilings): pinned host->device cudaMemcpy bandwidth and the rate of a plain kernel
// reading random blocks of pinned host memory. CUDA builds only (lib/src/emu/gpu/ceilings.cu).
#pragma once
#include <cstdint>

namespace bam {

struct gpu_ceilings {
  std::uint64_t bytes = 0;         ///< pinned memory measured over
  std::uint64_t block = 0;         ///< bytes per random read
  double memcpy_h2d_gbps = 0;      ///< one cudaMemcpyAsync of `bytes`, pinned -> device
  double direct_blocks_per_s = 0;  ///< plain kernel: random `block`s of pinned memory -> device
  double direct_gbps = 0;          ///< direct_blocks_per_s * block / 1e9
  int repeats = 0;                 ///< each figure is the median of this many (after a warm-up)
};

/// Measures both ceilings over `bytes` of pinned, mapped host memory at `pinned` (allocated and
/// freed here when nullptr), reading random `block`-byte blocks (a multiple of 16). Allocates
/// device memory: never call while an emulated_drives engine runs. Throws std::runtime_error on
/// CUDA errors.
gpu_ceilings measure_gpu_ceilings(const void* pinned, std::uint64_t bytes, std::uint64_t block,
                                  int repeats);

}  // namespace bam
