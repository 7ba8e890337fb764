// graph_backend.hpp: API. The harness backend of bfs and cc, one for CPU and GPU threads: it
// loads graph.file (graph_input.hpp), picks the sources (bfs), runs one point with the runner of
// its threads (host_runner.hpp's run_on_host, gpu_backend.hpp's run_on_gpu) and makes the report
// (graph_run.hpp's result_of).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bam/graph/csr.hpp"
#include "bam/harness/backend.hpp"
#include "graph_run.hpp"

namespace bam::apps {

/// What differs between the CPU and GPU backends.
struct graph_runner {
  /// One point on `g` (0-based `sources` for bfs); `file` is the graph's file.
  std::function<graph_outcome(graph_algorithm, const graph::csr_graph& g, const run_config& c,
                              const std::vector<std::uint32_t>& sources, bool verify,
                              const std::string& file)>
      run;
  /// Refuses at open what these threads cannot run (config_error); may be empty.
  std::function<void(const run_config&)> check;
  std::uint32_t max_threads = 0;  ///< workload.threads (0: no limit)
  std::string timing;             ///< how a traversal is timed, for the report ("": not said)
};

std::unique_ptr<backend> make_graph_backend(graph_algorithm a, graph_runner r);

}  // namespace bam::apps
