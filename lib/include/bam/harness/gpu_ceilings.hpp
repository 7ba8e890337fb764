// bam/harness/gpu_ceilings.hpp: API. The GPU machine's ceilings a GPU benchmark run is bounded by
// (bamkit.ceilings, in bam/harness/ceilings.hpp's shape): pinned host->device cudaMemcpy
// bandwidth and the rate of a plain kernel reading random blocks of pinned host memory. CUDA
// builds only (lib/src/harness/gpu_ceilings.cu).
#pragma once
#include <cstdint>

#include "bam/harness/ceilings.hpp"

namespace bam {

/// Measures both ceilings over `bytes` of pinned, mapped host memory at `pinned` (allocated and
/// freed here when nullptr), reading random `block`-byte blocks (a multiple of 16): each figure
/// the median of `repeats` runs after a warm-up. Allocates device memory: never call while an
/// emulated_drives engine runs. Throws std::runtime_error on CUDA errors.
machine_ceilings measure_gpu_ceilings(const void* pinned, std::uint64_t bytes, std::uint64_t block,
                                      int repeats);

}  // namespace bam
