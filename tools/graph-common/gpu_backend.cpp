// The harness backend of bfs and cc on GPU threads (storage.backend emulated; gpu_backend.hpp).
#include "gpu_backend.hpp"

#include "graph_backend.hpp"

namespace bam::apps {

std::unique_ptr<backend> make_gpu_backend(graph_algorithm a) {
  graph_runner r;
  r.run = run_on_gpu;
  r.timing = "host wall clock around each traversal's launches and waits";
  return make_graph_backend(a, std::move(r));
}

}  // namespace bam::apps
