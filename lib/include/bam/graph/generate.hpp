// bam/graph/generate.hpp: API. Synthetic graphs, as Graph500 and the GAP benchmark suite make
// them: `kron` (Kronecker/R-MAT with A = 0.57, B = C = 0.19, D = 0.05, vertex ids permuted) and
// `urand` (both endpoints uniform). edge_factor << scale edges are drawn; by default the graph is
// symmetrized without self-loops or duplicate edges. Deterministic: edge e is drawn from a
// counter-based generator (splitmix64 keyed by the seed and e), and rows are sorted, so the
// result is the same, byte for byte, on any number of threads.
#pragma once
#include <cstdint>
#include <string_view>

#include "bam/graph/csr.hpp"

namespace bam::graph {

enum class generator_kind { kron, urand };

/// "kron" / "urand"; parse_generator_kind throws std::invalid_argument for anything else.
std::string_view to_string(generator_kind k);
generator_kind parse_generator_kind(std::string_view s);

inline constexpr unsigned max_generator_scale = 40;

struct generator_options {
  generator_kind kind = generator_kind::kron;
  unsigned scale = 16;        ///< 2^scale vertices, in [1, max_generator_scale]
  unsigned edge_factor = 16;  ///< edge_factor << scale edges drawn, in [1, 1024]
  std::uint64_t seed = 1;
  /// What is done to the drawn edges (threads: how many build the graph; 0: all).
  edge_options edges{.symmetrize = true, .drop_self_loops = true, .dedup = true, .threads = 0};
};

/// The graph. Throws std::invalid_argument for a scale or edge factor out of range.
csr_graph generate(const generator_options& o);

/// Edge e's endpoints as drawn (before the edge options): what generate() builds from.
struct drawn_edge {
  std::uint64_t u, v;
};
drawn_edge draw_edge(const generator_options& o, std::uint64_t e);

}  // namespace bam::graph
