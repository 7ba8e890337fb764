// The text writers (bam/graph/text_files.hpp): blocks of rows are formatted with std::to_chars
// by several threads at once, a wave of blocks at a time, and appended in row order.
#include "bam/graph/text_files.hpp"

#include <charconv>
#include <string>
#include <vector>

#include "bam/graph/parallel.hpp"
#include "bam/storage/checksum.hpp"
#include "files.hpp"

namespace bam::graph {
namespace {

constexpr std::uint64_t edges_per_block = std::uint64_t{1} << 20;

void put(std::string& s, std::uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}

void put(std::string& s, float v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}

/// Row ranges holding about edges_per_block edges each.
std::vector<std::uint64_t> row_blocks(const csr_graph& g) {
  std::vector<std::uint64_t> starts{0};
  std::uint64_t next = edges_per_block;
  for (std::uint64_t u = 0; u < g.vertex_count; ++u) {
    if (g.offsets[u + 1] >= next) {
      starts.push_back(u + 1);
      next = g.offsets[u + 1] + edges_per_block;
    }
  }
  if (starts.back() != g.vertex_count) starts.push_back(g.vertex_count);
  return starts;
}

/// Writes `head`, then format(block rows, string&) of every block, in order.
template <class Format>
text_write_result write_blocks(const csr_graph& g, const std::filesystem::path& file,
                               unsigned threads, const std::string& head, Format&& format) {
  detail::output_file out(file);
  checksum64_stream sum;
  text_write_result r;
  auto emit = [&](const std::string& s) {
    out.write(s.data(), s.size());
    sum.update(s.data(), s.size());
    r.bytes += s.size();
  };
  emit(head);
  const std::vector<std::uint64_t> starts = row_blocks(g);
  const std::size_t blocks = starts.size() - 1;
  const unsigned t = detail::resolve_threads(threads);
  const std::size_t wave = std::size_t{t} * 2;
  std::vector<std::string> texts(wave);
  for (std::size_t first = 0; first < blocks; first += wave) {
    const std::size_t n = std::min(wave, blocks - first);
    detail::parallel_for(n, t, [&](std::size_t i) {
      texts[i].clear();
      format(starts[first + i], starts[first + i + 1], texts[i]);
    });
    for (std::size_t i = 0; i < n; ++i)
      emit(texts[i]);
  }
  out.commit();
  r.checksum = sum.digest();
  return r;
}

}  // namespace

text_write_result write_edge_list(const csr_graph& g, const std::filesystem::path& file,
                                  unsigned threads) {
  const bool weighted = !g.weights.empty();
  return write_blocks(g, file, threads, std::string(),
                      [&](std::uint64_t lo, std::uint64_t hi, std::string& s) {
                        for (std::uint64_t u = lo; u < hi; ++u) {
                          for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
                            put(s, u);
                            s += ' ';
                            put(s, g.neighbour(i));
                            if (weighted) {
                              s += ' ';
                              put(s, g.weights[i]);
                            }
                            s += '\n';
                          }
                        }
                      });
}

text_write_result write_matrix_market(const csr_graph& g, const std::filesystem::path& file,
                                      unsigned threads) {
  const bool weighted = !g.weights.empty();
  const bool sym = g.symmetric;
  std::uint64_t entries = g.edge_count();
  if (sym) {
    entries = 0;
    for (std::uint64_t u = 0; u < g.vertex_count; ++u) {
      for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i)
        entries += g.neighbour(i) <= u;
    }
  }
  std::string head = "%%MatrixMarket matrix coordinate ";
  head += weighted ? "real " : "pattern ";
  head += sym ? "symmetric\n" : "general\n";
  head += "% written by bamkit (bam-data); row i, column j: the edge i -> j\n";
  put(head, g.vertex_count);
  head += ' ';
  put(head, g.vertex_count);
  head += ' ';
  put(head, entries);
  head += '\n';
  return write_blocks(g, file, threads, head,
                      [&](std::uint64_t lo, std::uint64_t hi, std::string& s) {
                        for (std::uint64_t u = lo; u < hi; ++u) {
                          for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
                            const std::uint64_t v = g.neighbour(i);
                            if (sym && v > u) continue;
                            put(s, u + 1);
                            s += ' ';
                            put(s, v + 1);
                            if (weighted) {
                              s += ' ';
                              put(s, g.weights[i]);
                            }
                            s += '\n';
                          }
                        }
                      });
}

}  // namespace bam::graph
