// bam/harness/ceilings.hpp: API. Measurements of the machine's limits that a run is bounded by
// (bamkit.ceilings): random reads straight from memory at the run's I/O size.
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

namespace bam {

/// `threads` threads memcpy random io_size-aligned pieces of [base, base+bytes) for about
/// `seconds`; returns {"io_size", "threads", "iops", "bytes_per_s"}.
nlohmann::json measure_memory_random_read(const void* base, std::uint64_t bytes,
                                          std::uint64_t io_size, std::uint32_t threads,
                                          double seconds);

}  // namespace bam
