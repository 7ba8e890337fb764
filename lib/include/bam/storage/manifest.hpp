// bam/storage/manifest.hpp: API, wire format. The manifest a dataset keeps in its first stripe
// unit (64 KiB at LBA 0 of SSD 0): which named regions the dataset holds, where, and how the
// data is laid out (stripe unit, region alignment, SSD count, LBA size), so data laid out once is
// found again and read back with any cache line size. Little-endian, fixed layout.
#pragma once
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace bam {

inline constexpr std::array<char, 8> manifest_magic = {'B', 'A', 'M', 'K', 'I', 'T', 'D', 'S'};
inline constexpr std::uint32_t manifest_version = 1;

/// At byte 0 of the manifest.
struct manifest_header {
  std::array<char, 8> magic;       ///< manifest_magic
  std::uint32_t version;           ///< manifest_version
  std::uint32_t header_bytes;      ///< sizeof(manifest_header)
  std::uint32_t entry_bytes;       ///< sizeof(manifest_entry)
  std::uint32_t regions;           ///< entries following the header
  std::uint32_t stripe_bytes;      ///< the stripe unit the data was laid out with
  std::uint32_t region_alignment;  ///< every region starts at a multiple of it
  std::uint32_t ssds;              ///< SSDs the data is striped over
  std::uint32_t lba_bytes;         ///< LBA size of those SSDs
  /// XXH64 (seed 0) of the header with this field zero, followed by the entries.
  std::uint64_t checksum;
};
static_assert(sizeof(manifest_header) == 48);
static_assert(offsetof(manifest_header, version) == 8);
static_assert(offsetof(manifest_header, regions) == 20);
static_assert(offsetof(manifest_header, ssds) == 32);
static_assert(offsetof(manifest_header, checksum) == 40);

/// One region.
struct manifest_entry {
  std::array<char, 56> name;    ///< NUL-terminated (at most 55 characters)
  std::uint64_t offset;         ///< first byte in the dataset
  std::uint64_t bytes;          ///< the region's size
  std::uint64_t written_bytes;  ///< bytes [0, written_bytes) hold written contents
  std::uint64_t checksum;       ///< XXH64 (seed 0) of those bytes; 0 when never written
  std::uint32_t flags;          ///< manifest_written when the contents were written completely
  std::uint32_t reserved;       ///< 0
};
static_assert(sizeof(manifest_entry) == 96);
static_assert(offsetof(manifest_entry, offset) == 56);
static_assert(offsetof(manifest_entry, written_bytes) == 72);
static_assert(offsetof(manifest_entry, checksum) == 80);
static_assert(offsetof(manifest_entry, flags) == 88);

inline constexpr std::uint32_t manifest_written = 1;
/// The structs are copied as they are: the manifest's byte order is the host's, little-endian.
static_assert(std::endian::native == std::endian::little);

}  // namespace bam
