// sources.hpp: API. The sources of a bfs run: graph.source, or graph.sources picked by the
// seeded rule below (the host picks them for every backend, so they are the same on all).
#pragma once
#include <cstdint>
#include <vector>

#include "bam/config/run_config.hpp"
#include "bam/graph/csr.hpp"

namespace bam::apps {

/// The seeded rule: the candidates are the vertices of out-degree > 2 in ascending id; draw d
/// (d = 0, 1, ...) picks candidate mix64(seed + d) mod (number of candidates), and a candidate
/// drawn before is skipped, until `k` distinct sources are picked (in draw order). The same
/// on every backend (the host picks for both). config_error("graph.sources") when there are
/// fewer than k candidates.
std::vector<std::uint32_t> pick_sources(const graph::csr_graph& g, std::uint32_t k,
                                        std::uint64_t seed);

/// The sources of a bfs run (0-based ids): graph.source (given in the file's ids, config_error
/// when out of range) or pick_sources(graph.sources, workload.seed).
std::vector<std::uint32_t> sources_of(const run_config& c, const graph::csr_graph& g);

}  // namespace bam::apps
