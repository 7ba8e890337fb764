// bam/graph/summary.hpp: API. A few numbers about a csr_graph, counted in parallel: what the
// tools print about the graph they made or read, and what a source picker needs to know.
#pragma once
#include <cstdint>

#include "bam/graph/csr.hpp"

namespace bam::graph {

struct graph_summary {
  std::uint64_t max_degree = 0;
  std::uint64_t max_degree_vertex = 0;  ///< the smallest vertex of that degree
  std::uint64_t isolated = 0;           ///< vertices without out-edges
  std::uint64_t self_loops = 0;
};

graph_summary summarize(const csr_graph& g, unsigned threads = 0);

}  // namespace bam::graph
