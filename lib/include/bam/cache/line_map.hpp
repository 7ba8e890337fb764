// bam/cache/line_map.hpp: API. Where the data of a cache's dataset lies on its SSDs. The dataset
// is one byte address space striped over the SSDs in a fixed stripe unit (64 KiB, the largest
// line), whatever the cache's line size: data laid out once (bam/storage/) reads back with any
// line size. A line never crosses a stripe unit (line sizes are powers of two up to it).
#pragma once
#include <cstdint>

#include "bam/cache/cache_config.hpp"
#include "bam/detail/macros.hpp"

namespace bam {

/// log2 of the stripe unit: dataset bytes [k * 64 KiB, (k + 1) * 64 KiB) lie on SSD k % n, at
/// byte (k / n) * 64 KiB of its namespace (striped layout).
inline constexpr std::uint32_t stripe_shift = 16;
inline constexpr std::uint64_t stripe_bytes = std::uint64_t{1} << stripe_shift;
static_assert(stripe_bytes == max_line_bytes, "a line must never cross a stripe unit");

/// Dataset line -> (SSD, LBA) for lines of 2^line_shift bytes on SSDs of LBAs of
/// 2^(line_shift - block_shift) bytes. Host and device; no division but the one by the SSD
/// count. The shifts are kept precomputed (make_line_map): the miss path of every kernel that
/// reads through the cache computes a line's place, in registers it shares with the kernel.
struct line_map {
  std::uint32_t ssds = 1;
  std::uint32_t line_shift = 12;  ///< log2 of the line size, in [9, stripe_shift]
  std::uint32_t unit_shift = 4;   ///< log2 of the lines per stripe unit: stripe_shift - line_shift
  std::uint32_t block_shift = 3;  ///< log2 of the LBAs per line
  line_layout layout = line_layout::striped;

  BAM_HD std::uint32_t line_bytes() const { return 1u << line_shift; }
  BAM_HD std::uint32_t blocks_per_line() const { return 1u << block_shift; }

  /// The SSD that holds `line` (striped), or that it is read from (replicated: every SSD holds
  /// it; reads spread by stripe unit).
  BAM_HD std::uint32_t ssd_of(std::uint64_t line) const {
    return static_cast<std::uint32_t>((line >> unit_shift) % ssds);
  }
  /// LBA of `line` on its SSD (striped) or on every SSD (replicated).
  BAM_HD std::uint64_t lba_of(std::uint64_t line) const {
    if (layout == line_layout::replicated) return line << block_shift;
    const std::uint64_t unit = line >> unit_shift;
    const std::uint64_t in_unit = line - (unit << unit_shift);
    return (((unit / ssds) << unit_shift) + in_unit) << block_shift;
  }
  /// Dataset lines that SSDs of `lbas` LBAs each hold (striped: whole stripe units only).
  BAM_HD std::uint64_t capacity(std::uint64_t lbas) const {
    if (layout == line_layout::replicated) return lbas >> block_shift;
    const std::uint64_t units_per_ssd = lbas >> (unit_shift + block_shift);
    return (units_per_ssd * ssds) << unit_shift;
  }
};

/// Bytes of the striped dataset that `ssds` SSDs of `bytes_per_ssd` each hold (whole stripe
/// units).
BAM_HD constexpr std::uint64_t striped_capacity_bytes(std::uint64_t bytes_per_ssd,
                                                      std::uint32_t ssds) {
  return bytes_per_ssd / stripe_bytes * stripe_bytes * ssds;
}

/// The map of lines of `line_bytes` over `ssds` SSDs with LBAs of 2^lba_shift bytes. The caller
/// has checked the line size (check_line_bytes, bam/cache/slot_prps.hpp).
line_map make_line_map(std::uint32_t ssds, std::uint32_t line_bytes, std::uint32_t lba_shift,
                       line_layout layout);

}  // namespace bam
