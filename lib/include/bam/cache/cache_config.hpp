// bam/cache/cache_config.hpp: API. What a software cache is built with: line size, number of
// slots, the mapped dataset's size in lines and how lines are laid out over the SSDs.
#pragma once
#include <cstdint>

namespace bam {

/// How the dataset maps onto n SSDs (bam/cache/line_map.hpp).
enum class line_layout : std::uint8_t {
  striped,     ///< 64 KiB stripe unit k on SSD k % n at byte (k / n) * 64 KiB
  replicated,  ///< every SSD holds the whole dataset; a line is read from SSD (stripe unit % n)
};

/// What an array access that must succeed (read, write, atomic_add; not the try_ ones) does when
/// its line cannot be read. Either way the access is counted in cache_stats::failed_accesses.
enum class cache_error_mode : std::uint8_t {
  flag,  ///< read returns T{}, write and atomic_add do nothing; cache::io_failed() tells
  trap,  ///< stop at once, for debugging: __trap() on the GPU, std::abort() on the host
};

struct cache_config {
  std::uint32_t line_bytes = 4096;  ///< 512 B ... 64 KiB, a multiple of the LBA size
  std::uint64_t slots = 1024;       ///< cache slots (line_bytes each)
  std::uint64_t lines = 0;          ///< dataset lines (0: all the SSDs hold)
  line_layout layout = line_layout::striped;
  /// Per-I/O timeout (0: wait forever). A line whose I/O failed stays invalid (read) or dirty
  /// (write-back); the failure is counted in cache_stats::io_errors.
  std::uint64_t io_timeout_ns = 60'000'000'000ull;
  cache_error_mode on_error = cache_error_mode::flag;
};

inline constexpr std::uint32_t min_line_bytes = 512;
inline constexpr std::uint32_t max_line_bytes = 64 * 1024;

}  // namespace bam
