// The harness backend of bfs and cc on CPU threads (host_backend.hpp).
#include "host_backend.hpp"

#include "graph_backend.hpp"
#include "host_runner.hpp"

namespace bam::apps {

std::unique_ptr<backend> make_host_backend(graph_algorithm a) {
  graph_runner r;
  r.run = [](graph_algorithm alg, const graph::csr_graph& g, const run_config& c,
             const std::vector<std::uint32_t>& sources, bool verify,
             const std::string&) { return run_on_host(alg, g, c, sources, verify); };
  r.check = check_host_access;
  r.max_threads = 1024;
  return make_graph_backend(a, std::move(r));
}

}  // namespace bam::apps
