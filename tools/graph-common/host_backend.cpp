// The harness backend of bfs and cc on CPU threads.
#include "host_backend.hpp"

#include "graph_input.hpp"
#include "host_runner.hpp"
#include "sources.hpp"

namespace bam::apps {
namespace {

class graph_host_backend final : public backend {
 public:
  explicit graph_host_backend(graph_algorithm a) : algorithm_(a) {}
  void open(const run_config& c) override {
    check_host_access(c);
    caps_ = backend_caps{};
    caps_.max_ssds = cache_max_ssds;
    caps_.max_threads = 1024;
  }
  backend_caps capabilities() const override { return caps_; }
  run_result run(const run_config& c, const run_hooks& hooks) override {
    const input_graph& in = graph_of(c);
    std::vector<std::uint32_t> sources;
    if (algorithm_ == graph_algorithm::bfs) sources = sources_of(c, in.g);
    graph_outcome o = run_on_host(algorithm_, in.g, c, sources, hooks.verify);
    o.backend["graph_file"] = in.path;
    o.backend["parse_s"] = in.parse_s;
    if (hooks.ios_done != nullptr) hooks.ios_done->store(o.cache.reads);
    return result_of(o, in.g, c);
  }

 private:
  graph_algorithm algorithm_;
  backend_caps caps_{};
};

}  // namespace

std::unique_ptr<backend> make_host_backend(graph_algorithm a) {
  return std::make_unique<graph_host_backend>(a);
}

}  // namespace bam::apps
