// The `.csr` file: layout, writer and validating reader (bam/graph/csr_file.hpp).
#include "bam/graph/csr_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <span>
#include <string>

#include "bam/detail/expects.hpp"
#include "bam/graph/parallel.hpp"
#include "bam/storage/checksum.hpp"
#include "bam/storage/regions.hpp"
#include "build.hpp"
#include "files.hpp"

namespace bam::graph {

static_assert(std::endian::native == std::endian::little, "the .csr file is little-endian");
static_assert(csr_section_alignment == region_alignment,
              "each section of a .csr file can be placed as a region");

namespace {

std::uint64_t align_up(std::uint64_t x) {
  return (x + csr_section_alignment - 1) & ~(csr_section_alignment - 1);
}

constexpr std::size_t checksummed_header_bytes = offsetof(csr_header, checksum);

template <class T>
std::span<const std::byte> bytes_of(const std::vector<T>& v) {
  return std::as_bytes(std::span<const T>(v));
}

std::uint64_t checksum_of(const csr_header& h, const std::vector<std::uint64_t>& offsets,
                          std::span<const std::byte> neighbours, const std::vector<float>& w) {
  checksum64_stream s;
  s.update(&h, checksummed_header_bytes);
  s.update(offsets.data(), offsets.size() * sizeof(std::uint64_t));
  s.update(neighbours.data(), neighbours.size());
  s.update(w.data(), w.size() * sizeof(float));
  return s.digest();
}

std::span<const std::byte> neighbour_bytes_of(const csr_graph& g) {
  return g.wide() ? bytes_of(g.neighbours64) : bytes_of(g.neighbours32);
}

class fd_guard {
 public:
  explicit fd_guard(const std::filesystem::path& file)
      : fd_(::open(file.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw input_error(file.string() + ": cannot open: " + std::strerror(errno));
  }
  ~fd_guard() { ::close(fd_); }
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  int get() const { return fd_; }
  std::uint64_t size() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return 0;
    return static_cast<std::uint64_t>(st.st_size);
  }

 private:
  int fd_;
};

csr_header header_of(int fd, std::uint64_t file_size, const std::filesystem::path& file) {
  csr_header h{};
  if (file_size < sizeof(csr_header) || !detail::read_exact(fd, &h, sizeof h, 0)) {
    detail::fail_at_byte(
        file, 0,
        "the file is " + std::to_string(file_size) + " bytes, shorter than the 128-byte header");
  }
  if (std::memcmp(h.magic, csr_magic, sizeof csr_magic) != 0) {
    detail::fail_at_byte(file, 0, "not a bamkit .csr file (magic is not \"BAMCSR\")");
  }
  if (h.version != csr_version) {
    detail::fail_at_byte(file, offsetof(csr_header, version),
                         "version " + std::to_string(h.version) + " (this build reads version 1)");
  }
  if (h.header_bytes != sizeof(csr_header)) {
    detail::fail_at_byte(file, offsetof(csr_header, header_bytes),
                         "header size " + std::to_string(h.header_bytes) + " (expected 128)");
  }
  if (h.vertex_count >= (std::uint64_t{1} << 60)) {
    detail::fail_at_byte(file, offsetof(csr_header, vertex_count),
                         "vertex count " + std::to_string(h.vertex_count) + " is impossibly large");
  }
  if (h.edge_count >= (std::uint64_t{1} << 60)) {
    detail::fail_at_byte(file, offsetof(csr_header, edge_count),
                         "edge count " + std::to_string(h.edge_count) + " is impossibly large");
  }
  if ((h.flags & ~csr_known_flags) != 0) {
    detail::fail_at_byte(file, offsetof(csr_header, flags),
                         "unknown flags " + std::to_string(h.flags));
  }
  // Every other field follows from (vertex_count, edge_count, flags): compare with the layout.
  csr_graph shape;
  shape.vertex_count = h.vertex_count;
  const csr_header want = [&] {
    csr_header w{};
    const std::uint64_t nb = shape.wide() ? 8 : 4;
    w.neighbour_bytes = static_cast<std::uint32_t>(nb);
    w.id_base = h.id_base;
    w.section_alignment = static_cast<std::uint32_t>(csr_section_alignment);
    w.offsets_offset = align_up(sizeof(csr_header));
    w.offsets_bytes = (h.vertex_count + 1) * 8;
    w.neighbours_offset = align_up(w.offsets_offset + w.offsets_bytes);
    w.neighbours_bytes = h.edge_count * nb;
    const bool weighted = h.weighted();
    w.weights_offset = weighted ? align_up(w.neighbours_offset + w.neighbours_bytes) : 0;
    w.weights_bytes = weighted ? h.edge_count * 4 : 0;
    w.file_bytes =
        weighted ? w.weights_offset + w.weights_bytes : w.neighbours_offset + w.neighbours_bytes;
    return w;
  }();
  auto expect = [&](std::size_t at, std::uint64_t got, std::uint64_t exp, const char* name) {
    if (got != exp) {
      detail::fail_at_byte(file, at,
                           std::string(name) + " is " + std::to_string(got) + ", expected " +
                               std::to_string(exp) + " for " + std::to_string(h.vertex_count) +
                               " vertices and " + std::to_string(h.edge_count) + " edges");
    }
  };
  expect(offsetof(csr_header, neighbour_bytes), h.neighbour_bytes, want.neighbour_bytes,
         "neighbour width");
  expect(offsetof(csr_header, section_alignment), h.section_alignment, want.section_alignment,
         "section alignment");
  expect(offsetof(csr_header, offsets_offset), h.offsets_offset, want.offsets_offset,
         "offsets section offset");
  expect(offsetof(csr_header, offsets_bytes), h.offsets_bytes, want.offsets_bytes,
         "offsets section size");
  expect(offsetof(csr_header, neighbours_offset), h.neighbours_offset, want.neighbours_offset,
         "neighbours section offset");
  expect(offsetof(csr_header, neighbours_bytes), h.neighbours_bytes, want.neighbours_bytes,
         "neighbours section size");
  expect(offsetof(csr_header, weights_offset), h.weights_offset, want.weights_offset,
         "weights section offset");
  expect(offsetof(csr_header, weights_bytes), h.weights_bytes, want.weights_bytes,
         "weights section size");
  expect(offsetof(csr_header, file_bytes), h.file_bytes, want.file_bytes, "file size");
  if (h.reserved[0] != 0 || h.reserved[1] != 0) {
    detail::fail_at_byte(file, offsetof(csr_header, reserved),
                         "reserved header bytes are not zero");
  }
  if (file_size != h.file_bytes) {
    detail::fail_at_byte(file, std::min(file_size, h.file_bytes),
                         "the header says the file is " + std::to_string(h.file_bytes) +
                             " bytes, it is " + std::to_string(file_size) +
                             (file_size < h.file_bytes ? " (truncated)" : ""));
  }
  return h;
}

template <class Id>
void check_neighbours(const std::vector<Id>& nbr, const csr_header& h,
                      const std::filesystem::path& file, unsigned threads) {
  // The first out-of-range neighbour, whatever the thread count.
  const std::size_t blocks = std::max<std::size_t>(1, nbr.size() >> 20);
  std::atomic<std::uint64_t> first{std::numeric_limits<std::uint64_t>::max()};
  detail::parallel_for(blocks, threads, [&](std::size_t b) {
    const std::size_t lo = detail::block_begin(nbr.size(), blocks, b);
    const std::size_t hi = detail::block_begin(nbr.size(), blocks, b + 1);
    for (std::size_t i = lo; i < hi; ++i) {
      if (nbr[i] >= h.vertex_count) {
        std::uint64_t cur = first.load();
        while (i < cur && !first.compare_exchange_weak(cur, i)) {
        }
        return;
      }
    }
  });
  const std::uint64_t i = first.load();
  if (i != std::numeric_limits<std::uint64_t>::max()) {
    detail::fail_at_byte(file, h.neighbours_offset + i * sizeof(Id),
                         "neighbour " + std::to_string(nbr[i]) + " (edge " + std::to_string(i) +
                             ") >= vertex count " + std::to_string(h.vertex_count));
  }
}

}  // namespace

csr_header csr_layout(const csr_graph& g) {
  csr_header h{};
  std::memcpy(h.magic, csr_magic, sizeof csr_magic);
  h.version = csr_version;
  h.header_bytes = sizeof(csr_header);
  h.vertex_count = g.vertex_count;
  h.edge_count = g.edge_count();
  const std::uint64_t nb = g.wide() ? 8 : 4;
  h.neighbour_bytes = static_cast<std::uint32_t>(nb);
  const bool weighted = !g.weights.empty();
  h.flags = (weighted ? csr_flag_weights : 0) | (g.symmetric ? csr_flag_symmetric : 0);
  h.id_base = g.id_base;
  h.section_alignment = static_cast<std::uint32_t>(csr_section_alignment);
  h.offsets_offset = align_up(sizeof(csr_header));
  h.offsets_bytes = (g.vertex_count + 1) * 8;
  h.neighbours_offset = align_up(h.offsets_offset + h.offsets_bytes);
  h.neighbours_bytes = h.edge_count * nb;
  h.weights_offset = weighted ? align_up(h.neighbours_offset + h.neighbours_bytes) : 0;
  h.weights_bytes = weighted ? h.edge_count * 4 : 0;
  h.file_bytes =
      weighted ? h.weights_offset + h.weights_bytes : h.neighbours_offset + h.neighbours_bytes;
  return h;
}

csr_header write_csr(const csr_graph& g, const std::filesystem::path& file) {
  BAM_EXPECTS(g.offsets.size() == g.vertex_count + 1, "write_csr: offsets of vertex_count + 1");
  BAM_EXPECTS(neighbour_bytes_of(g).size() == g.edge_count() * (g.wide() ? 8 : 4),
              "write_csr: one neighbour per edge, of the width wide() says");
  BAM_EXPECTS(g.weights.empty() || g.weights.size() == g.edge_count(),
              "write_csr: no weights or one per edge");
  csr_header h = csr_layout(g);
  const auto nbr = neighbour_bytes_of(g);
  h.checksum = checksum_of(h, g.offsets, nbr, g.weights);
  detail::output_file out(file);
  out.resize(h.file_bytes);
  out.write_at(&h, sizeof h, 0);
  out.write_at(g.offsets.data(), h.offsets_bytes, h.offsets_offset);
  out.write_at(nbr.data(), nbr.size(), h.neighbours_offset);
  if (h.weighted()) out.write_at(g.weights.data(), h.weights_bytes, h.weights_offset);
  out.commit();
  return h;
}

csr_header read_csr_header(const std::filesystem::path& file) {
  fd_guard fd(file);
  return header_of(fd.get(), fd.size(), file);
}

csr_graph read_csr(const std::filesystem::path& file, unsigned threads) {
  fd_guard fd(file);
  const csr_header h = header_of(fd.get(), fd.size(), file);
  csr_graph g;
  g.vertex_count = h.vertex_count;
  g.symmetric = h.symmetric();
  g.id_base = h.id_base;
  auto read = [&](void* to, std::uint64_t bytes, std::uint64_t at) {
    if (!detail::read_exact(fd.get(), to, bytes, at))
      detail::fail_at_byte(file, at, "cannot read the section");
  };
  g.offsets.resize(h.vertex_count + 1);
  read(g.offsets.data(), h.offsets_bytes, h.offsets_offset);
  if (g.wide()) {
    g.neighbours64.resize(h.edge_count);
    read(g.neighbours64.data(), h.neighbours_bytes, h.neighbours_offset);
  } else {
    g.neighbours32.resize(h.edge_count);
    read(g.neighbours32.data(), h.neighbours_bytes, h.neighbours_offset);
  }
  if (h.weighted()) {
    g.weights.resize(h.edge_count);
    read(g.weights.data(), h.weights_bytes, h.weights_offset);
  }
  if (g.offsets[0] != 0) {
    detail::fail_at_byte(file, h.offsets_offset,
                         "offsets[0] is " + std::to_string(g.offsets[0]) + ", not 0");
  }
  for (std::uint64_t v = 0; v < h.vertex_count; ++v) {
    if (g.offsets[v + 1] < g.offsets[v]) {
      detail::fail_at_byte(
          file, h.offsets_offset + (v + 1) * 8,
          "offsets[" + std::to_string(v + 1) + "] = " + std::to_string(g.offsets[v + 1]) +
              " is less than offsets[" + std::to_string(v) + "] = " + std::to_string(g.offsets[v]));
    }
  }
  if (g.offsets.back() != h.edge_count) {
    detail::fail_at_byte(file, h.offsets_offset + h.vertex_count * 8,
                         "the last offset is " + std::to_string(g.offsets.back()) +
                             ", the edge count " + std::to_string(h.edge_count));
  }
  if (g.wide()) {
    check_neighbours(g.neighbours64, h, file, threads);
  } else {
    check_neighbours(g.neighbours32, h, file, threads);
  }
  const std::uint64_t sum = checksum_of(h, g.offsets, neighbour_bytes_of(g), g.weights);
  if (sum != h.checksum) {
    std::string msg = "checksum mismatch: the header says ";
    msg += checksum_hex(h.checksum);
    msg += ", the data gives ";
    msg += checksum_hex(sum);
    detail::fail_at_byte(file, offsetof(csr_header, checksum), msg);
  }
  return g;
}

}  // namespace bam::graph
