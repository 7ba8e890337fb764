// reference.hpp: API. The CPU references --verify compares bfs and cc against: a level-by-level
// breadth-first search and union-find connected components, on every core of the machine (a
// scale-27 graph in seconds on 16 cores, not minutes), and their plain sequential versions, which
// the tests hold the parallel ones to. They share no code with the kernels (bfs_steps.hpp,
// cc_steps.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bam/graph/csr.hpp"

namespace bam::apps {

/// Level of every vertex from `source` (0-based), -1 where unreachable, following the stored
/// (directed) edges. `threads` 0: one per core, levels of fewer than 4096 vertices on the calling
/// thread; otherwise that many threads for every level.
std::vector<std::int32_t> reference_levels(const graph::csr_graph& g, std::uint64_t source,
                                           unsigned threads = 0);

/// Label of every vertex: the smallest vertex id (0-based) of its component in the undirected
/// graph (each stored edge taken both ways). `threads` 0: one per core.
std::vector<std::uint32_t> reference_components(const graph::csr_graph& g, unsigned threads = 0);

/// The same, one thread, in the plainest form (a FIFO queue; union-find with the smaller root
/// kept): what the tests compare the parallel references with.
std::vector<std::int32_t> sequential_levels(const graph::csr_graph& g, std::uint64_t source);
std::vector<std::uint32_t> sequential_components(const graph::csr_graph& g);

/// How a result differs from its reference: the number of vertices that differ and the first
/// of them, described in the input file's ids ("" when equal).
struct mismatch {
  std::uint64_t count = 0;
  std::string first;
};
mismatch compare_levels(const std::vector<std::int32_t>& got, const std::vector<std::int32_t>& want,
                        std::uint32_t id_base);
mismatch compare_labels(const std::vector<std::uint32_t>& got,
                        const std::vector<std::uint32_t>& want, std::uint32_t id_base);

}  // namespace bam::apps
