// bam/storage/stripes.hpp: API. A byte range of the dataset cut at stripe-unit boundaries into
// the pieces each SSD holds (the striped layout of bam/cache/line_map.hpp), for code that writes
// or reads a region's contents directly (through block I/O or into emulated media).
#pragma once
#include <algorithm>
#include <cstdint>

#include "bam/cache/line_map.hpp"

namespace bam {

/// One piece: `bytes` bytes at byte `ssd_offset` of SSD `ssd`, which are bytes
/// [range_offset, range_offset + bytes) of the range.
struct stripe_piece {
  std::uint32_t ssd = 0;
  std::uint64_t ssd_offset = 0;
  std::uint64_t range_offset = 0;
  std::uint64_t bytes = 0;
};

/// `n` rounded up to a multiple of `unit` (e.g. a piece's bytes to whole LBAs).
constexpr std::uint64_t round_up(std::uint64_t n, std::uint64_t unit) {
  return (n + unit - 1) / unit * unit;
}

/// The SSD and byte offset of dataset byte `at` over `ssds` SSDs.
inline stripe_piece place_of(std::uint64_t at, std::uint32_t ssds) {
  const std::uint64_t unit = at >> stripe_shift;
  stripe_piece p;
  p.ssd = static_cast<std::uint32_t>(unit % ssds);
  p.ssd_offset = ((unit / ssds) << stripe_shift) + (at & (stripe_bytes - 1));
  return p;
}

/// Calls f(stripe_piece) for each piece of dataset bytes [offset, offset + bytes), in order.
template <class F>
void for_each_stripe_piece(std::uint64_t offset, std::uint64_t bytes, std::uint32_t ssds, F&& f) {
  std::uint64_t done = 0;
  while (done < bytes) {
    const std::uint64_t at = offset + done;
    stripe_piece p = place_of(at, ssds);
    p.range_offset = done;
    p.bytes = std::min(bytes - done, stripe_bytes - (at & (stripe_bytes - 1)));
    f(p);
    done += p.bytes;
  }
}

}  // namespace bam
