// The sources of a bfs run.
#include "sources.hpp"

#include <fmt/format.h>

#include <unordered_set>

#include "bam/config/config_io.hpp"
#include "bam/detail/hash.hpp"

namespace bam::apps {

std::vector<std::uint32_t> pick_sources(const graph::csr_graph& g, std::uint32_t k,
                                        std::uint64_t seed) {
  std::vector<std::uint32_t> candidates;
  for (std::uint64_t v = 0; v < g.vertex_count; ++v) {
    if (g.offsets[v + 1] - g.offsets[v] > 2) candidates.push_back(static_cast<std::uint32_t>(v));
  }
  if (candidates.size() < k) {
    throw config_error("graph.sources",
                       fmt::format("{} sources asked, but only {} vertices have degree > 2, "
                                   "allowed [1, {}] or graph.source (--source V)",
                                   k, candidates.size(), candidates.size()));
  }
  std::vector<std::uint32_t> out;
  std::unordered_set<std::uint32_t> taken;
  for (std::uint64_t d = 0; out.size() < k; ++d) {
    const std::uint32_t v = candidates[mix64(seed + d) % candidates.size()];
    if (taken.insert(v).second) out.push_back(v);
  }
  return out;
}

std::vector<std::uint32_t> sources_of(const run_config& c, const graph::csr_graph& g) {
  if (!c.graph.source) return pick_sources(g, c.graph.sources, c.workload.seed);
  const std::uint64_t s = *c.graph.source, base = g.id_base;
  if (s < base || s - base >= g.vertex_count) {
    throw config_error("graph.source",
                       fmt::format("{} is not a vertex of the graph, allowed [{}, {}] (the "
                                   "input file's ids)",
                                   s, base, base + g.vertex_count - 1));
  }
  return {static_cast<std::uint32_t>(s - base)};
}

}  // namespace bam::apps
