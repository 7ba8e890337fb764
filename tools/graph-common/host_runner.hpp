// host_runner.hpp: API. bfs and cc with CPU threads (workload.threads of them) reading the
// neighbour lists through the BaM cache of a host storage context (host emulated controllers,
// or real ones through bamkit.ko): graph.access bam (a fresh cache per traversal) or
// bam-preloaded (every line read into the cache before timing). The kernels are the GPU's
// (bfs_steps.hpp, cc_steps.hpp), each CPU thread a warp of one lane.
#pragma once
#include <cstdint>
#include <vector>

#include "bam/graph/csr.hpp"
#include "graph_run.hpp"

namespace bam::apps {

/// config_error("graph.access") unless the host runs it (bam, bam-preloaded).
void check_host_access(const run_config& c);

/// One point on `g` (0-based `sources` for bfs) over a host context opened for `c`. Throws
/// config_error for what `c` cannot do (an access mode other than bam/bam-preloaded, a graph
/// that does not fit), std::runtime_error when the SSDs fail to come up.
graph_outcome run_on_host(graph_algorithm a, const graph::csr_graph& g, const run_config& c,
                          const std::vector<std::uint32_t>& sources, bool verify);

}  // namespace bam::apps
