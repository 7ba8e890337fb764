// The two ways sum_array sums the same numbers: the values, the configuration of the SSDs they
// live on, and the paths that read them back.
#pragma once
#include <cstdint>
#include <vector>

#include "bam/config/run_config.hpp"

/// Element i of the array.
constexpr std::uint64_t value(std::uint64_t i) {
  return (i * 0x9e3779b97f4a7c15ull) ^ (i >> 7);
}

/// value(0 .. n-1), and their plain sum.
std::vector<std::uint64_t> values(std::uint64_t n);
std::uint64_t plain_sum(const std::vector<std::uint64_t>& v);

/// SSDs that hold n 8-byte values: `backend` (host or emulated), 4 SSDs, a cache of 1 MiB.
bam::run_config ssds_for(std::uint64_t n, bam::backend_kind backend);

/// How a sum went: an access that could not read its element makes the sum wrong, and says so
/// through the cache's error flag (cache::io_failed()).
enum class sum_status { matches, differs, io_failed };

/// Lays the numbers out on host-emulated SSDs and sums them with CPU threads through the cache.
sum_status sum_on_host(const std::vector<std::uint64_t>& v);

/// The same on GPU-emulated SSDs, summed by a kernel through the GPU cache (matches when there
/// is no GPU: it says it skipped).
sum_status sum_on_gpu(const std::vector<std::uint64_t>& v);
