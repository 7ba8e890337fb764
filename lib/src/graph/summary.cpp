// summarize (bam/graph/summary.hpp): blocks of rows counted on their own threads, combined in
// block order (so the max-degree vertex is the smallest one, whatever the thread count).
#include "bam/graph/summary.hpp"

#include <algorithm>
#include <vector>

#include "bam/graph/parallel.hpp"

namespace bam::graph {

graph_summary summarize(const csr_graph& g, unsigned threads) {
  constexpr std::uint64_t rows = std::uint64_t{1} << 16;
  const std::size_t blocks = static_cast<std::size_t>((g.vertex_count + rows - 1) / rows);
  std::vector<graph_summary> part(blocks);
  detail::parallel_for(blocks, threads, [&](std::size_t b) {
    graph_summary& s = part[b];
    const std::uint64_t end = std::min<std::uint64_t>(g.vertex_count, (b + 1) * rows);
    for (std::uint64_t u = b * rows; u < end; ++u) {
      const std::uint64_t d = g.offsets[u + 1] - g.offsets[u];
      if (d > s.max_degree) {
        s.max_degree = d;
        s.max_degree_vertex = u;
      }
      s.isolated += d == 0;
      for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
        s.self_loops += g.neighbour(i) == u;
      }
    }
  });
  graph_summary out;
  for (const graph_summary& s : part) {
    if (s.max_degree > out.max_degree) {
      out.max_degree = s.max_degree;
      out.max_degree_vertex = s.max_degree_vertex;
    }
    out.isolated += s.isolated;
    out.self_loops += s.self_loops;
  }
  return out;
}

}  // namespace bam::graph
