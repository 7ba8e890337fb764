// Where a cache's lines lie on its SSDs (bam/cache/line_map.hpp).
#include "bam/cache/line_map.hpp"

#include <bit>

namespace bam {

line_map make_line_map(std::uint32_t ssds, std::uint32_t line_bytes, std::uint32_t lba_shift,
                       line_layout layout) {
  line_map m;
  m.ssds = ssds;
  m.line_shift = static_cast<std::uint32_t>(std::countr_zero(line_bytes));
  m.unit_shift = stripe_shift - m.line_shift;
  m.block_shift = m.line_shift - lba_shift;
  m.layout = layout;
  return m;
}

}  // namespace bam
