// bam/harness/ceilings.hpp: API. The machine's limits a run is bounded by, in the one shape every
// report carries (`bamkit.ceilings`, report schema version 2): the rate of random direct reads
// of memory at the run's I/O size (by GPU warps of pinned host memory, or by CPU threads), and
// the pinned host->device copy bandwidth where there is a GPU. The GPU measurement is
// bam/harness/gpu_ceilings.hpp (CUDA builds); the CPU one is here.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace bam {

/// Measured ceilings. JSON (to_json): every key always present, a figure not measured is null.
struct machine_ceilings {
  std::optional<double> h2d_memcpy_gbps;  ///< pinned host->device cudaMemcpy, GB/s (no GPU: none)
  double direct_read_gbps = 0;            ///< direct_reads_per_s * io_size / 1e9
  double direct_reads_per_s = 0;          ///< random io_size-aligned reads of the memory per s
  std::uint64_t io_size = 0;              ///< bytes per direct read
  std::uint64_t over_bytes = 0;           ///< bytes of memory the reads were spread over
  std::string method;                     ///< who read how, and how the copy was timed
  std::string memory;                     ///< which memory was read
  int median_of = 1;                      ///< each figure is the median of this many runs
};

/// {"h2d_memcpy_gbps", "direct_read_gbps", "direct_reads_per_s", "io_size", "over_bytes",
/// "method", "memory", "median_of"}.
nlohmann::json to_json(const machine_ceilings& c);

/// `threads` CPU threads memcpy random io_size-aligned pieces of [base, base+bytes) for about
/// `seconds` (one timed run); h2d_memcpy_gbps is left unset. `memory` says what base is.
machine_ceilings measure_memory_random_read(const void* base, std::uint64_t bytes,
                                            std::uint64_t io_size, std::uint32_t threads,
                                            double seconds, std::string memory);

}  // namespace bam
