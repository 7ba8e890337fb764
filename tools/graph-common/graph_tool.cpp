// The tool_spec of bfs and cc.
#include "graph_tool.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "graph_input.hpp"
#include "graph_storage.hpp"
#include "host_backend.hpp"
#include "host_runner.hpp"
#include "sources.hpp"
#if BAM_GRAPH_APPS_GPU
#include "bam/report/gpu_info.hpp"
#include "gpu_backend.hpp"
#endif

namespace bam::apps {
namespace {

const nlohmann::json& stats_of(const report_inputs& in) {
  static const nlohmann::json none = nlohmann::json::object();
  const nlohmann::json& s = in.result->tool_stats;
  return s.contains("graph") ? s["graph"] : none;
}

/// stats["a"]["b"]... as text ("" when absent); numbers with `digits` decimals.
std::string field(const nlohmann::json& j, std::initializer_list<const char*> path,
                  int digits = 6) {
  const nlohmann::json* at = &j;
  for (const char* k : path) {
    if (!at->is_object() || !at->contains(k)) return "";
    at = &(*at)[k];
  }
  if (at->is_number_float()) return fmt::format("{:.{}f}", at->get<double>(), digits);
  if (at->is_string()) return at->get<std::string>();
  if (at->is_null()) return "";
  return at->dump();
}

void decorate(report_inputs& in) {
  const nlohmann::json& s = stats_of(in);
  auto add = [&](const char* name, std::string v) { in.extra_columns.emplace_back(name, v); };
  add("algorithm", field(s, {"algorithm"}));
  add("access", field(s, {"access"}));
  add("graph", in.config->graph.file);
  add("vertices", field(s, {"vertices"}));
  add("edges", field(s, {"edges"}));
  add("sources", std::to_string(s.contains("traversals") ? s["traversals"].size() : 0));
  add("time_s", field(s, {"time_s"}));
  add("end_to_end_s", field(s, {"end_to_end_s"}));
  add("end_to_end_disk_s", field(s, {"end_to_end_disk_s"}));
  add("load_model_s", field(s, {"load", "model_s"}));
  add("load_disk_s", field(s, {"load", "disk_s"}));
  add("teps", field(s, {"teps"}, 0));
  add("steps", field(s, {"steps"}));
  add("edges_read", field(s, {"edges_read"}));
  add("graph_ios", field(s, {"ios"}));
  add("bytes_read", field(s, {"bytes_read"}));
  add("io_amplification", field(s, {"io_amplification"}, 3));
  add("hit_rate", field(s, {"cache", "hit_rate"}, 4));
  add("compute_s", field(s, {"breakdown", "compute_s"}));
  add("cache_api_s", field(s, {"breakdown", "cache_api_s"}));
  add("storage_s", field(s, {"breakdown", "storage_s"}));
  add("registers", field(s, {"kernel", "registers_per_thread"}));
  add("occupancy", field(s, {"kernel", "occupancy"}, 3));
  add("verified", field(s, {"verified"}));
}

void print_extra(std::ostream& os, const report_inputs& in) {
  const nlohmann::json& s = stats_of(in);
  if (s.empty()) return;
  fmt::print(os, "  {} {} on {} ({} vertices, {} edges{}): {} s per {}, {} TEPS, {} steps\n",
             field(s, {"algorithm"}), field(s, {"access"}), in.config->graph.file,
             field(s, {"vertices"}), field(s, {"edges"}),
             s.value("symmetric", false) ? ", symmetric" : "", field(s, {"time_s"}),
             field(s, {"algorithm"}) == "bfs" ? "source" : "run", field(s, {"teps"}, 0),
             field(s, {"steps"}));
  if (s.contains("cache")) {
    fmt::print(os,
               "  storage: {} I/Os, {} B read, amplification {} (bytes read / neighbour bytes "
               "used), cache hit rate {}\n",
               field(s, {"ios"}), field(s, {"bytes_read"}), field(s, {"io_amplification"}, 3),
               field(s, {"cache", "hit_rate"}, 4));
  }
  if (s.contains("load")) {
    fmt::print(os,
               "  end to end: {} s with the load at the model bandwidth, {} s with the "
               "measured disk read\n",
               field(s, {"end_to_end_s"}), field(s, {"end_to_end_disk_s"}));
  }
  if (s.contains("breakdown") && !s["breakdown"].is_null()) {
    fmt::print(os, "  breakdown: compute {} s, cache API {} s, storage {} s\n",
               field(s, {"breakdown", "compute_s"}), field(s, {"breakdown", "cache_api_s"}),
               field(s, {"breakdown", "storage_s"}));
  }
  if (s.contains("kernel")) {
    fmt::print(os, "  kernel: {} registers per thread, occupancy {}\n",
               field(s, {"kernel", "registers_per_thread"}), field(s, {"kernel", "occupancy"}, 3));
  }
  if (s.value("verified", false)) {
    fmt::print(os, "  verify: {} vertices differ from the CPU reference\n",
               field(s, {"verify", "mismatches"}));
  }
}

bool cpu_backend(backend_kind k) {
  return k == backend_kind::host || k == backend_kind::nvme;
}

}  // namespace

tool_spec graph_tool_spec(graph_algorithm a) {
  const bool bfs = a == graph_algorithm::bfs;
  tool_spec spec;
  spec.name = to_string(a);
  spec.description =
      bfs ? "bfs: breadth-first search over a graph whose neighbour lists are read through the "
            "BaM cache from (emulated) SSDs, or from GPU, pinned host or managed memory"
          : "cc: connected components of a graph whose neighbour lists are read through the BaM "
            "cache from (emulated) SSDs, or from GPU, pinned host or managed memory";
  spec.verify_help = bfs ? "compare every source's levels with a CPU breadth-first search"
                         : "compare the labels with CPU union-find components";
  spec.options = {
      {"--graph", "graph.file", "the input graph: .csr, .mtx, .el, or .col (with .dst)"},
      {"--access", "graph.access", "gpu-memory|host-zero-copy|uvm|bam|bam-preloaded"},
  };
  if (bfs) {
    spec.options.push_back({"--source", "graph.source", "source vertex (the file's ids)"});
    spec.options.push_back({"--sources", "graph.sources", "sources picked by the seeded rule"});
    spec.options.push_back({"--dump-levels", "graph.dump",
                            "write \"vertex level\" per vertex (first source) to FILE"});
  } else {
    spec.options.push_back({"--dump-components", "graph.dump",
                            "write \"vertex label\" per vertex (label: smallest id of its "
                            "component) to FILE"});
  }
  spec.make_backend = [a](backend_kind k) -> std::unique_ptr<backend> {
    if (cpu_backend(k)) return make_host_backend(a);
#if BAM_GRAPH_APPS_GPU
    if (k == backend_kind::emulated) return make_gpu_backend(a);
#endif
    return nullptr;
  };
  spec.available_backends = [] {
#if BAM_GRAPH_APPS_GPU
    return std::string("host|nvme|emulated");
#else
    return std::string("host|nvme");
#endif
  };
  spec.validate = [a](const run_config& c) {
    const input_graph& in = graph_of(c);
    if (a == graph_algorithm::bfs) sources_of(c, in.g);
    if (cpu_backend(c.storage.backend)) check_host_access(c);
  };
  spec.unit = "IOs";
#if BAM_GRAPH_APPS_GPU
  spec.query_gpu = query_gpu_info;
#endif
  spec.decorate = decorate;
  spec.print_extra = print_extra;
  spec.summary_workload = [](const run_config& c) {
    return fmt::format("access={}", to_string(c.graph.access));
  };
  return spec;
}

}  // namespace bam::apps
