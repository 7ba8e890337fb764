// bam/graph/csr_file.hpp: API. The on-disk `.csr` file: a 128-byte header that states its own
// layout, then three sections, each starting at a multiple of 64 KiB (bam::region_alignment, so
// that each can be placed as a region of a dataset as it is):
//   offsets     vertex_count + 1 little-endian uint64, offsets[0] = 0, non-decreasing,
//               offsets[vertex_count] = edge_count
//   neighbours  edge_count ids of neighbour_bytes (4 when vertex_count <= 2^32, else 8), each
//               < vertex_count (0-based; the input's own id = id + id_base)
//   weights     edge_count float32, present when flags has csr_flag_weights
// Bytes between sections are zero. The checksum is XXH64 (seed 0, bam::checksum64_stream of
// bam/storage/checksum.hpp) over the header's first 120 bytes (every field before `checksum`),
// then the offsets, neighbours and weights sections' bytes in that order (padding excluded).
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "bam/graph/csr.hpp"

namespace bam::graph {

inline constexpr char csr_magic[8] = {'B', 'A', 'M', 'C', 'S', 'R', '\0', '\0'};
inline constexpr std::uint32_t csr_version = 1;
inline constexpr std::uint64_t csr_section_alignment = std::uint64_t{1} << 16;

inline constexpr std::uint32_t csr_flag_weights = 1u << 0;    ///< a weights section follows
inline constexpr std::uint32_t csr_flag_symmetric = 1u << 1;  ///< each (u, v) has its (v, u)
inline constexpr std::uint32_t csr_known_flags = csr_flag_weights | csr_flag_symmetric;

/// The header as it lies at byte 0 of the file (little-endian).
struct csr_header {
  char magic[8];                    ///< "BAMCSR\0\0"
  std::uint32_t version;            ///< csr_version
  std::uint32_t header_bytes;       ///< sizeof(csr_header) = 128
  std::uint64_t vertex_count;       ///< rows
  std::uint64_t edge_count;         ///< directed edges (a symmetric graph stores both directions)
  std::uint32_t neighbour_bytes;    ///< 4 or 8
  std::uint32_t flags;              ///< csr_flag_*
  std::uint32_t id_base;            ///< 0, or 1 for a graph imported from Matrix Market
  std::uint32_t section_alignment;  ///< csr_section_alignment
  std::uint64_t offsets_offset;     ///< byte offset of the offsets section in the file
  std::uint64_t offsets_bytes;      ///< (vertex_count + 1) * 8
  std::uint64_t neighbours_offset;
  std::uint64_t neighbours_bytes;  ///< edge_count * neighbour_bytes
  std::uint64_t weights_offset;    ///< 0 without weights
  std::uint64_t weights_bytes;     ///< edge_count * 4, or 0
  std::uint64_t file_bytes;        ///< the whole file: the last section's end
  std::uint64_t reserved[2];       ///< zero
  std::uint64_t checksum;          ///< XXH64, see above

  bool weighted() const { return (flags & csr_flag_weights) != 0; }
  bool symmetric() const { return (flags & csr_flag_symmetric) != 0; }
};
static_assert(sizeof(csr_header) == 128, "the .csr header is 128 bytes");
static_assert(offsetof(csr_header, vertex_count) == 16);
static_assert(offsetof(csr_header, neighbour_bytes) == 32);
static_assert(offsetof(csr_header, offsets_offset) == 48);
static_assert(offsetof(csr_header, file_bytes) == 96);
static_assert(offsetof(csr_header, checksum) == 120);

/// The header `g` gets in a file (sections laid out, checksum not yet computed: 0).
csr_header csr_layout(const csr_graph& g);

/// Writes `g` to `file` (temporary file in the same directory, renamed over `file` once
/// complete and synced: no half-written file ever has the name). Returns the header written,
/// checksum included. Throws std::runtime_error naming the file when it cannot be written.
csr_header write_csr(const csr_graph& g, const std::filesystem::path& file);

/// Reads and validates the header only (magic, version, sizes against the file's size, section
/// layout); throws input_error naming the file and byte offset of the field that is wrong.
csr_header read_csr_header(const std::filesystem::path& file);

/// Reads the whole graph and validates it: header, checksum, offsets (0 first, non-decreasing,
/// edge_count last), every neighbour < vertex_count. Throws input_error naming the file and the
/// byte offset of the first problem.
csr_graph read_csr(const std::filesystem::path& file, unsigned threads = 0);

}  // namespace bam::graph
