// taxi-query's tiled implementation reads a row group of every needed column at a time, as a
// CPU-orchestrated (RAPIDS-like) reader does: from the SSDs through host queues
// (host_context::read_region), or from the table's files (the page cache: the baseline's best
// case).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "bam/storage/host_context.hpp"
#include "taxi_table.hpp"

namespace bam::tools {

struct tiled_io {
  std::uint64_t bytes = 0;     ///< moved from storage
  std::uint64_t commands = 0;  ///< NVMe reads or file reads
};

class tiled_reader {
 public:
  virtual ~tiled_reader() = default;
  /// Rows [first, first + n) of query columns 0..deepest into dst[k] (n doubles each).
  virtual tiled_io read(std::uint64_t first, std::uint64_t n, int deepest, double* const* dst) = 0;
  /// "tiled (ssd)" or "tiled (page cache)".
  virtual std::string label() const = 0;
};

/// Row groups from the SSDs of `ctx` (its regions taxi_region(k)), `threads` reading threads.
std::unique_ptr<tiled_reader> ssd_tiled_reader(host_context& ctx, unsigned threads);
/// Row groups from the column files of `t` (pread, one thread per column).
std::unique_ptr<tiled_reader> file_tiled_reader(const taxi_table& t);

}  // namespace bam::tools
