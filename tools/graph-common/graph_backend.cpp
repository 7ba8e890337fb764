// The harness backend of bfs and cc (graph_backend.hpp).
#include "graph_backend.hpp"

#include <utility>

#include "bam/storage/context_caps.hpp"
#include "graph_input.hpp"
#include "sources.hpp"

namespace bam::apps {
namespace {

class graph_backend final : public backend {
 public:
  graph_backend(graph_algorithm a, graph_runner r) : algorithm_(a), runner_(std::move(r)) {}
  void open(const run_config& c) override {
    if (runner_.check) runner_.check(c);
  }
  backend_caps capabilities() const override { return context_backend_caps(runner_.max_threads); }
  run_result run(const run_config& c, const run_hooks& hooks) override {
    const input_graph& in = graph_of(c);
    std::vector<std::uint32_t> sources;
    if (algorithm_ == graph_algorithm::bfs) sources = sources_of(c, in.g);
    graph_outcome o = runner_.run(algorithm_, in.g, c, sources, hooks.verify, in.path);
    o.backend["graph_file"] = in.path;
    o.backend["parse_s"] = in.parse_s;
    if (!runner_.timing.empty()) o.backend["timing"] = runner_.timing;
    if (hooks.ios_done != nullptr) hooks.ios_done->store(o.cache.reads);
    return result_of(o, in.g, c);
  }

 private:
  graph_algorithm algorithm_;
  graph_runner runner_;
};

}  // namespace

std::unique_ptr<backend> make_graph_backend(graph_algorithm a, graph_runner r) {
  return std::make_unique<graph_backend>(a, std::move(r));
}

}  // namespace bam::apps
