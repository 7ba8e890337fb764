// host_backend.hpp: API. The harness backend of bfs and cc on CPU threads (storage.backend host
// or nvme): graph_backend.hpp's backend with host_runner.hpp's run_on_host.
#pragma once
#include <cstdint>
#include <memory>

#include "bam/harness/backend.hpp"
#include "graph_run.hpp"

namespace bam::apps {

/// The harness backend (storage.backend host or nvme): graph.file, its sources, run_on_host and
/// result_of.
std::unique_ptr<backend> make_host_backend(graph_algorithm a);

}  // namespace bam::apps
