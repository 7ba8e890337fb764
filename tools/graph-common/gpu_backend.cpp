// The harness backend of bfs and cc on GPU threads (storage.backend emulated).
#include "gpu_backend.hpp"

#include "graph_input.hpp"
#include "sources.hpp"

namespace bam::apps {
namespace {

class graph_gpu_backend final : public backend {
 public:
  explicit graph_gpu_backend(graph_algorithm a) : algorithm_(a) {}
  void open(const run_config&) override {
    caps_ = backend_caps{};
    caps_.max_ssds = cache_max_ssds;
  }
  backend_caps capabilities() const override { return caps_; }
  run_result run(const run_config& c, const run_hooks& hooks) override {
    const input_graph& in = graph_of(c);
    std::vector<std::uint32_t> sources;
    if (algorithm_ == graph_algorithm::bfs) sources = sources_of(c, in.g);
    graph_outcome o = run_on_gpu(algorithm_, in.g, c, sources, hooks.verify, in.path);
    o.backend["graph_file"] = in.path;
    o.backend["parse_s"] = in.parse_s;
    o.backend["timing"] = "host wall clock around each traversal's launches and waits";
    if (hooks.ios_done != nullptr) hooks.ios_done->store(o.cache.reads);
    return result_of(o, in.g, c);
  }

 private:
  graph_algorithm algorithm_;
  backend_caps caps_{};
};

}  // namespace

std::unique_ptr<backend> make_gpu_backend(graph_algorithm a) {
  return std::make_unique<graph_gpu_backend>(a);
}

}  // namespace bam::apps
