// bam/array/range.hpp: API. A range: `elements` values of type T stored in consecutive lines of
// a cache's dataset from `first_line` on (line_bytes / sizeof(T) per line; the cache's storage
// layout decides whether those lines are striped over the SSDs or replicated on each).
#pragma once
#include <cstdint>

#include "bam/detail/macros.hpp"

namespace bam {

template <class T>
struct range {
  std::uint64_t first_line = 0;  ///< dataset line holding element 0
  std::uint64_t elements = 0;

  /// Lines the range covers with lines of `line_bytes`.
  BAM_HD constexpr std::uint64_t lines(std::uint32_t line_bytes) const {
    const std::uint64_t per_line = line_bytes / sizeof(T);
    return (elements + per_line - 1) / per_line;
  }
  /// The first line after the range (where a following range may start).
  BAM_HD constexpr std::uint64_t end_line(std::uint32_t line_bytes) const {
    return first_line + lines(line_bytes);
  }
};

}  // namespace bam
