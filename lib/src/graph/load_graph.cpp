// load_graph (bam/graph/csr.hpp): the loader chosen by the file's extension; the EMOGI/BaM
// binary `.col` + `.dst` loader; apply_edge_options.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <string>

#include "bam/graph/csr.hpp"
#include "bam/graph/csr_file.hpp"
#include "bam/graph/parallel.hpp"
#include "build.hpp"
#include "files.hpp"
#include "load_text.hpp"

namespace bam::graph {
namespace detail {
namespace {

constexpr std::uint64_t col_header_bytes = 16;  // uint64 count, uint64 type word

std::uint64_t load_u64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// The count in the 16-byte header of a .col or .dst file, checked against its size.
std::uint64_t counted_values(const mapped_file& m, const std::filesystem::path& file,
                             const char* what) {
  if (m.size() < col_header_bytes) {
    detail::fail_at_byte(file, m.size(),
                         "the file is " + std::to_string(m.size()) +
                             " bytes, shorter than the 16-byte header (count, type)");
  }
  const std::uint64_t n = load_u64(m.data());
  const std::uint64_t have = (m.size() - col_header_bytes) / 8;
  if (n != have || (m.size() - col_header_bytes) % 8 != 0) {
    const std::uint64_t at = n < have ? col_header_bytes + n * 8 : m.size();
    detail::fail_at_byte(file, at,
                         "the header (byte 0) counts " + std::to_string(n) + " " + what +
                             ", the file holds " + std::to_string(m.size() - col_header_bytes) +
                             " bytes of them" + (n > have ? " (truncated)" : " (trailing bytes)"));
  }
  return n;
}

template <class Id>
void copy_neighbours(const mapped_file& dst, std::vector<Id>& out, std::uint64_t vertex_count,
                     const std::filesystem::path& file, unsigned threads) {
  const std::uint64_t n = out.size();
  const char* base = dst.data() + col_header_bytes;
  const std::size_t blocks = std::max<std::size_t>(1, n >> 20);
  std::atomic<std::uint64_t> first{std::numeric_limits<std::uint64_t>::max()};
  parallel_for(blocks, threads, [&](std::size_t b) {
    const std::uint64_t lo = block_begin(n, blocks, b), hi = block_begin(n, blocks, b + 1);
    for (std::uint64_t i = lo; i < hi; ++i) {
      const std::uint64_t v = load_u64(base + i * 8);
      if (v >= vertex_count) {
        std::uint64_t cur = first.load();
        while (i < cur && !first.compare_exchange_weak(cur, i)) {
        }
        return;
      }
      out[i] = static_cast<Id>(v);
    }
  });
  const std::uint64_t i = first.load();
  if (i != std::numeric_limits<std::uint64_t>::max()) {
    detail::fail_at_byte(file, col_header_bytes + i * 8,
                         "neighbour " + std::to_string(load_u64(base + i * 8)) + " (edge " +
                             std::to_string(i) + ") >= vertex count " +
                             std::to_string(vertex_count));
  }
}

std::string lower_extension(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  for (char& c : ext)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

}  // namespace

csr_graph load_col_dst(const std::filesystem::path& col, const edge_options& o) {
  std::filesystem::path dst = col;
  dst.replace_extension(".dst");
  const mapped_file mc(col);
  const mapped_file md(dst);
  const std::uint64_t offsets = counted_values(mc, col, "offsets");
  if (offsets == 0)
    detail::fail_at_byte(col, 0, "0 offsets (a graph has vertex count + 1 >= 1 of them)");
  const std::uint64_t edges = counted_values(md, dst, "neighbours");
  csr_graph g;
  g.vertex_count = offsets - 1;
  g.offsets.resize(offsets);
  std::memcpy(g.offsets.data(), mc.data() + col_header_bytes, offsets * 8);
  if (g.offsets[0] != 0) {
    detail::fail_at_byte(col, col_header_bytes,
                         "offsets[0] is " + std::to_string(g.offsets[0]) + ", not 0");
  }
  for (std::uint64_t v = 0; v < g.vertex_count; ++v) {
    if (g.offsets[v + 1] < g.offsets[v]) {
      detail::fail_at_byte(
          col, col_header_bytes + (v + 1) * 8,
          "offsets[" + std::to_string(v + 1) + "] = " + std::to_string(g.offsets[v + 1]) +
              " is less than offsets[" + std::to_string(v) + "] = " + std::to_string(g.offsets[v]));
    }
  }
  if (g.offsets.back() != edges) {
    detail::fail_at_byte(col, col_header_bytes + g.vertex_count * 8,
                         "the last offset is " + std::to_string(g.offsets.back()) + ", but " +
                             dst.string() + " holds " + std::to_string(edges) + " neighbours");
  }
  const unsigned threads = resolve_threads(o.threads);
  if (g.wide()) {
    g.neighbours64.resize(edges);
    copy_neighbours(md, g.neighbours64, g.vertex_count, dst, threads);
  } else {
    g.neighbours32.resize(edges);
    copy_neighbours(md, g.neighbours32, g.vertex_count, dst, threads);
  }
  return apply_edge_options(std::move(g), o);
}

}  // namespace detail

csr_graph load_graph(const std::filesystem::path& file, const edge_options& options) {
  const std::string ext = detail::lower_extension(file);
  if (ext == ".csr") return apply_edge_options(read_csr(file, options.threads), options);
  if (ext == ".mtx") return detail::load_matrix_market(file, options);
  if (ext == ".el") return detail::load_edge_list(file, options);
  if (ext == ".col") return detail::load_col_dst(file, options);
  throw input_error(file.string() + ": unknown graph format '" + ext +
                    "' (the loaders read .csr, .mtx, .el, and .col with its .dst)");
}

csr_graph apply_edge_options(csr_graph g, const edge_options& o) {
  if (!o.symmetrize && !o.drop_self_loops && !o.dedup) return g;
  const bool weighted = !g.weights.empty();
  csr_graph out =
      g.wide()
          ? detail::build_csr<std::uint64_t>(detail::csr_source{g}, g.vertex_count, weighted, o)
          : detail::build_csr<std::uint32_t>(detail::csr_source{g}, g.vertex_count, weighted, o);
  out.symmetric = g.symmetric || o.symmetrize;
  out.id_base = g.id_base;
  return out;
}

}  // namespace bam::graph
