// Shared helpers of the host cache tests: the cache and array types, element values, and media
// access per dataset line (through the rig, bypassing the cache).
#pragma once
#include <cstdint>
#include <vector>

#include "bam/array/array.hpp"
#include "bam/cache/cache.hpp"
#include "bam/cache/host_storage.hpp"
#include "host_rig.hpp"

namespace bam::test {

using host_cache = cache<host_cache_storage>;
using u64_array = array<std::uint64_t, host_cache::ref_type>;

/// The value element i holds on the media before any write.
inline std::uint64_t initial_value(std::uint64_t i) {
  return (i + 1) * 0x9e3779b97f4a7c15ull ^ 0x5bd1e995ull;
}

inline line_map map_of(const host_cache& c) {
  const auto& cfg = c.config();
  return make_line_map(c.storage().ssds(), cfg.line_bytes, 9, cfg.layout);
}

/// The 64-bit elements of `line` as SSD `ssd` holds them (replicated: any SSD; striped: pass
/// the line's own SSD, i.e. ssd_of(line)).
inline std::vector<std::uint64_t> media_line(host_rig& rig, const line_map& m,
                                             std::uint32_t line_bytes, std::uint64_t line,
                                             std::uint32_t ssd) {
  std::vector<std::uint64_t> v(line_bytes / 8);
  rig.media_io(ssd, false, m.lba_of(line), m.blocks_per_line(), v.data());
  return v;
}

/// Writes initial_value over lines [0, lines) of the media (every replica).
inline void fill_media(host_rig& rig, const line_map& m, std::uint32_t line_bytes,
                       std::uint64_t lines) {
  const std::uint64_t per_line = line_bytes / 8;
  std::vector<std::uint64_t> v(per_line);
  for (std::uint64_t l = 0; l < lines; ++l) {
    for (std::uint64_t k = 0; k < per_line; ++k)
      v[k] = initial_value(l * per_line + k);
    if (m.layout == line_layout::striped) {
      rig.media_io(m.ssd_of(l), true, m.lba_of(l), m.blocks_per_line(), v.data());
    } else {
      for (std::uint32_t d = 0; d < m.ssds; ++d)
        rig.media_io(d, true, m.lba_of(l), m.blocks_per_line(), v.data());
    }
  }
}

}  // namespace bam::test
