// bam/harness/gpu_ceilings.hpp: API. The GPU machine's ceilings a GPU benchmark run is bounded by
// (bamkit.ceilings, in bam/harness/ceilings.hpp's shape): pinned host->device cudaMemcpy
// bandwidth and the rate of a plain kernel reading random blocks of pinned host memory. CUDA
// builds only (lib/src/harness/gpu_ceilings.cu).
#pragma once
#include <cstdint>
#include <span>

#include "bam/harness/ceilings.hpp"

namespace bam {

/// One piece of pinned, mapped host memory the ceilings are measured over.
struct pinned_span {
  const void* base = nullptr;
  std::uint64_t bytes = 0;
};

/// Both ceilings over the same footprint as a run whose media are `spans` (one per SSD): each
/// direct read picks a span at random, then a random `block`-byte block of it, so the reads are
/// spread over every span as a run's I/Os are over its SSDs (the direct-read rate falls as the
/// footprint grows: host IOMMU/TLB reach); the copy copies every span once per run. Each figure
/// the median of `repeats` runs after a warm-up; over_bytes is the spans' total. Every span
/// must hold at least one block. Allocates device memory (up to 1 GiB for the copy): never call
/// while an emulated_drives engine runs. Throws std::runtime_error on CUDA errors.
machine_ceilings measure_gpu_ceilings(std::span<const pinned_span> spans, std::uint64_t block,
                                      int repeats);

/// The ceilings of a run over its footprint on each SSD's media (`spans`, one per SSD; a null
/// base: that SSD's media is not in host memory): over the spans when all are in pinned host
/// memory, else over pinned memory of its own, `own_bytes` of it, at most 4 GiB.
machine_ceilings measure_run_ceilings(std::span<const pinned_span> spans, std::uint64_t own_bytes,
                                      std::uint64_t block, int repeats);

/// Measures both ceilings over `bytes` of pinned, mapped host memory at `pinned` (allocated and
/// freed here when nullptr), reading random `block`-byte blocks (a multiple of 16): each figure
/// the median of `repeats` runs after a warm-up. Allocates device memory: never call while an
/// emulated_drives engine runs. Throws std::runtime_error on CUDA errors.
machine_ceilings measure_gpu_ceilings(const void* pinned, std::uint64_t bytes, std::uint64_t block,
                                      int repeats);

}  // namespace bam
