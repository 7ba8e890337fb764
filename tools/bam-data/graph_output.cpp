// Writing a graph and its summary (graph_output.hpp).
#include "graph_output.hpp"

#include <fmt/format.h>

#include <chrono>
#include <stdexcept>

#include "bam/graph/csr_file.hpp"
#include "bam/graph/summary.hpp"
#include "bam/graph/text_files.hpp"
#include "bam/storage/checksum.hpp"

namespace bam::data {

graph_format graph_format_of(const std::string& format, const std::filesystem::path& out) {
  std::string f = format;
  if (f.empty()) {
    const std::string ext = out.extension().string();
    f = ext == ".el" ? "el" : ext == ".mtx" ? "mtx" : "csr";
  }
  if (f == "csr") return graph_format::csr;
  if (f == "el") return graph_format::el;
  if (f == "mtx") return graph_format::mtx;
  throw std::invalid_argument("--format " + f + ": expected csr, el or mtx");
}

const char* to_string(graph_format f) {
  return f == graph_format::csr ? "csr" : f == graph_format::el ? "el" : "mtx";
}

void write_graph(const bam::graph::csr_graph& g, const std::filesystem::path& out, graph_format f,
                 unsigned threads, double make_seconds, const char* make_what) {
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t bytes = 0, checksum = 0;
  if (f == graph_format::csr) {
    const bam::graph::csr_header h = bam::graph::write_csr(g, out);
    bytes = h.file_bytes;
    checksum = h.checksum;
  } else {
    const bam::graph::text_write_result r = f == graph_format::el
                                                ? bam::graph::write_edge_list(g, out, threads)
                                                : bam::graph::write_matrix_market(g, out, threads);
    bytes = r.bytes;
    checksum = r.checksum;
  }
  const double write_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const bam::graph::graph_summary sum = bam::graph::summarize(g, threads);
  fmt::print(
      "{}: {} vertices, {} directed edges ({}{}), max degree {} (vertex {}), {} isolated, {} "
      "self-loops, {}-byte ids, id base {}\n",
      out.string(), g.vertex_count, g.edge_count(), g.symmetric ? "symmetric" : "directed",
      g.weights.empty() ? "" : ", weighted", sum.max_degree, sum.max_degree_vertex + g.id_base,
      sum.isolated, sum.self_loops, g.wide() ? 8 : 4, g.id_base);
  fmt::print("{}: {} {} bytes, checksum xxh64 {}; {} {:.3f} s, write {:.3f} s\n", out.string(),
             to_string(f), bytes, checksum_hex(checksum), make_what, make_seconds, write_s);
}

}  // namespace bam::data
