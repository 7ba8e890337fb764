// bam/storage/regions.hpp: API. Named regions of a dataset: byte ranges of the one address space
// striped over the SSDs (bam/cache/line_map.hpp), each starting at a multiple of the stripe unit
// so that element 0 of a region starts a line whatever the line size. The table is what the
// dataset's manifest records (bam/storage/manifest.hpp); arrays over a region come from it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bam/array/range.hpp"
#include "bam/cache/line_map.hpp"

namespace bam {

/// Regions start at multiples of this (the stripe unit: the largest line).
inline constexpr std::uint64_t region_alignment = stripe_bytes;
/// The manifest's room: the dataset's first stripe unit, when it keeps one.
inline constexpr std::uint64_t manifest_bytes = stripe_bytes;
inline constexpr std::size_t region_name_max = 55;

struct region {
  std::string name;
  std::uint64_t offset = 0;  ///< first byte in the dataset (a multiple of region_alignment)
  std::uint64_t bytes = 0;
  std::uint64_t written_bytes = 0;  ///< bytes [0, written_bytes) were written (when written)
  std::uint64_t checksum = 0;       ///< checksum64 of those bytes (valid when written)
  bool written = false;

  std::uint64_t end() const { return offset + bytes; }
  /// Its elements of type T (bytes / sizeof(T) of them) for lines of `line_bytes`.
  template <class T>
  range<T> as_range(std::uint32_t line_bytes) const {
    return range<T>{offset / line_bytes, bytes / sizeof(T)};
  }
};

/// How the data is striped: what a manifest must match to be read back.
struct dataset_geometry {
  std::uint32_t ssds = 1;
  std::uint32_t lba_bytes = 512;
  bool operator==(const dataset_geometry&) const = default;
};

class region_table {
 public:
  /// An empty table whose first region starts at `first` (manifest_bytes when the dataset keeps
  /// its manifest in its first stripe unit, 0 without one).
  explicit region_table(std::uint64_t first = manifest_bytes);

  /// Appends a region of `bytes` after the last one (aligned) and returns it. Throws
  /// std::invalid_argument for an empty name, one longer than region_name_max or holding a NUL,
  /// a name already used, or 0 bytes.
  region add(std::string name, std::uint64_t bytes);
  /// The region called `name`, or nullptr.
  const region* find(std::string_view name) const;
  /// The same; throws std::out_of_range naming it and the regions there are. (References into
  /// the table stay valid until the next add.)
  const region& at(std::string_view name) const;
  /// Records that the first `bytes` bytes of the region were written, with their checksum.
  void mark_written(std::string_view name, std::uint64_t bytes, std::uint64_t checksum);
  /// Records that the region's contents are being rewritten (not valid until mark_written).
  void mark_unwritten(std::string_view name);

  const std::vector<region>& regions() const { return regions_; }
  std::uint64_t first() const { return first_; }
  /// One past the last region's last byte (first() when there is none).
  std::uint64_t end() const;

  /// The manifest of this table for data laid out with `g` (at most manifest_bytes; throws
  /// std::length_error when the regions do not fit).
  std::vector<std::byte> encode(const dataset_geometry& g) const;
  /// Whether `bytes` starts with a manifest's magic (a dataset was laid out there).
  static bool has_manifest(std::span<const std::byte> bytes);
  /// The table a manifest holds. Throws std::runtime_error naming what is wrong: not a
  /// manifest, another version, a bad checksum, a geometry other than `expect` (SSD count, LBA
  /// size, stripe unit), or entries that overlap, are misaligned, repeat a name, or carry
  /// values this version does not know.
  static region_table decode(std::span<const std::byte> bytes, const dataset_geometry& expect);

 private:
  std::uint64_t first_ = manifest_bytes;
  std::vector<region> regions_;
};

}  // namespace bam
