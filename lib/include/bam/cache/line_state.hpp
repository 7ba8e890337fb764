// bam/cache/line_state.hpp: API. The 32-bit state word of one cache line (BaM dissertation §6.4,
// Table 6.1, the "faa" design): Valid, Busy and Dirty bits over a 29-bit reference count.
#pragma once
#include <cstdint>

#include "bam/detail/macros.hpp"

namespace bam::line_state {

inline constexpr std::uint32_t valid = 1u << 31;  ///< V: the line is in its slot
inline constexpr std::uint32_t busy = 1u << 30;   ///< B: being inserted (V=0) or evicted (V=1)
inline constexpr std::uint32_t dirty = 1u << 29;  ///< D: the slot differs from the media
inline constexpr std::uint32_t flags = valid | busy | dirty;
inline constexpr std::uint32_t count_mask = dirty - 1;  ///< reference count, 29 bits

BAM_HD constexpr std::uint32_t count(std::uint32_t s) {
  return s & count_mask;
}
BAM_HD constexpr bool is_valid(std::uint32_t s) {
  return (s & valid) != 0;
}
BAM_HD constexpr bool is_busy(std::uint32_t s) {
  return (s & busy) != 0;
}
BAM_HD constexpr bool is_dirty(std::uint32_t s) {
  return (s & dirty) != 0;
}
/// Usable by a reader that holds a reference: valid and not being evicted.
BAM_HD constexpr bool is_usable(std::uint32_t s) {
  return (s & (valid | busy)) == valid;
}

}  // namespace bam::line_state
