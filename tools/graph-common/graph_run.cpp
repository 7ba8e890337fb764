// The report of a bfs or cc point, the same for every backend.
#include "graph_run.hpp"

#include <fmt/format.h>

#include <map>
#include <numeric>

#include "bam/config/config_io.hpp"
#include "bam/config/ssd_model.hpp"
#include "bam/storage/checksum.hpp"
#include "dump.hpp"

namespace bam::apps {

const char* to_string(graph_algorithm a) {
  return a == graph_algorithm::bfs ? "bfs" : "cc";
}

void cache_totals::add(const cache_stats& s) {
  hits += s.hits;
  misses += s.misses;
  reads += s.reads;
  for (const std::uint64_t b : s.bytes_read)
    bytes_read += b;
  evictions += s.evictions;
  failed_accesses += s.failed_accesses;
  io_errors += s.io_errors;
}

namespace {
void merge(mismatch& into, const mismatch& m) {
  if (m.count == 0) return;
  if (into.count == 0) into.first = m.first;
  into.count += m.count;
}

/// The CPU references of the last graph verified, kept so that the access modes of a sweep
/// (one process, one graph) compute each once: at scale 27 one takes about a minute. The graph
/// is recognised by the XXH64 of its arrays (seconds at that scale), never by its address.
struct reference_memo {
  std::uint64_t fingerprint = 0;
  std::map<std::uint32_t, std::vector<std::int32_t>> levels;
  std::vector<std::uint32_t> labels;
  bool has_labels = false;

  static reference_memo& of(const graph::csr_graph& g) {
    static reference_memo m;
    checksum64_stream h;
    h.update(&g.vertex_count, sizeof g.vertex_count);
    h.update(g.offsets.data(), g.offsets.size() * sizeof(std::uint64_t));
    h.update(g.neighbours32.data(), g.neighbours32.size() * sizeof(std::uint32_t));
    h.update(g.neighbours64.data(), g.neighbours64.size() * sizeof(std::uint64_t));
    if (const std::uint64_t f = h.digest(); f != m.fingerprint) {
      m = reference_memo{};
      m.fingerprint = f;
    }
    return m;
  }
};
}  // namespace

void verify_levels(graph_outcome& o, const graph::csr_graph& g, std::uint32_t source,
                   const std::vector<std::int32_t>& levels) {
  o.verified = true;
  reference_memo& memo = reference_memo::of(g);
  auto at = memo.levels.find(source);
  if (at == memo.levels.end()) at = memo.levels.emplace(source, reference_levels(g, source)).first;
  mismatch m = compare_levels(levels, at->second, g.id_base);
  if (m.count != 0) m.first = fmt::format("source {}: {}", source + g.id_base, m.first);
  merge(o.verify, m);
}

void verify_labels(graph_outcome& o, const graph::csr_graph& g) {
  o.verified = true;
  reference_memo& memo = reference_memo::of(g);
  if (!memo.has_labels) {
    memo.labels = reference_components(g);
    memo.has_labels = true;
  }
  merge(o.verify, compare_labels(o.labels, memo.labels, g.id_base));
}

void count_reached(traversal& t, const graph::csr_graph& g, const std::vector<std::int32_t>& lv) {
  t.reached = t.reached_edges = 0;
  for (std::uint64_t v = 0; v < lv.size(); ++v) {
    if (lv[v] < 0) continue;
    ++t.reached;
    t.reached_edges += g.offsets[v + 1] - g.offsets[v];
  }
}

namespace {

/// Mean traversal time per (graph, algorithm, sources, storage) and access mode, for the
/// breakdown (paper Figure 7: gpu-memory = compute, bam-preloaded - gpu-memory = cache API,
/// bam - bam-preloaded = storage).
std::map<std::string, std::map<graph_access, double>>& mode_times() {
  static std::map<std::string, std::map<graph_access, double>> m;
  return m;
}
std::string breakdown_key(const graph_outcome& o, const run_config& c) {
  run_config k = c;
  k.graph.access = graph_access::bam;
  k.graph.dump.clear();
  k.report = {};
  nlohmann::json j = to_json(k);
  j["sources"] = o.sources;
  j["algorithm"] = to_string(o.algorithm);
  return j.dump();
}
nlohmann::json breakdown(const graph_outcome& o, const run_config& c, double mean_s) {
  auto& times = mode_times()[breakdown_key(o, c)];
  times[c.graph.access] = mean_s;
  const auto has = [&](graph_access a) { return times.count(a) != 0; };
  if (!has(graph_access::gpu_memory) || !has(graph_access::bam_preloaded) ||
      !has(graph_access::bam))
    return nullptr;
  const double compute = times[graph_access::gpu_memory];
  const double api = times[graph_access::bam_preloaded] - compute;
  const double storage = times[graph_access::bam] - times[graph_access::bam_preloaded];
  return {{"compute_s", compute},
          {"cache_api_s", api},
          {"storage_s", storage},
          {"method",
           "paper Figure 7: gpu-memory = compute, bam-preloaded - gpu-memory = cache API, bam - "
           "bam-preloaded = storage; mean time per traversal of the runs of this process with "
           "the same graph, sources and storage"}};
}

/// host-zero-copy's end-to-end times: with the graph's load into host memory measured from disk
/// and at the SSD set's model bandwidth.
void add_load_times(nlohmann::json& j, const run_config& c, std::uint64_t graph_bytes,
                    double mean_s) {
  if (!j.contains("load")) return;
  nlohmann::json& load = j["load"];
  const std::optional<ssd_model> m = resolve(c.storage.model);
  const double bw = m ? m->read_bandwidth_gbps * 1e9 * c.storage.ssd_count : 0;
  load["graph_bytes"] = graph_bytes;
  load["model_bandwidth_Bps"] = bw;
  load["model_s"] = bw > 0 ? double(graph_bytes) / bw : 0.0;
  j["end_to_end_s"] = mean_s + load["model_s"].get<double>();
  j["end_to_end_disk_s"] = mean_s + load["disk_s"].get<double>();
  j["end_to_end_note"] =
      "end_to_end_s = time per traversal + the graph's load at the SSD set's model read "
      "bandwidth (storage.model x storage.ssd_count; 0 for a model without a bandwidth cap): the "
      "comparison with bam uses it; end_to_end_disk_s uses the measured read from this "
      "machine's disk";
}

}  // namespace

run_result result_of(graph_outcome& o, const graph::csr_graph& g, const run_config& c) {
  run_result r;
  double total_s = 0;
  std::uint64_t edges_read = 0, reached_edges = 0, steps = 0, bottom_up = 0, bad_ids = 0;
  nlohmann::json per = nlohmann::json::array();
  for (std::size_t i = 0; i < o.runs.size(); ++i) {
    const traversal& t = o.runs[i];
    total_s += t.seconds;
    edges_read += t.edges_read;
    reached_edges += t.reached_edges;
    steps += t.steps;
    bottom_up += t.bottom_up_steps;
    bad_ids += t.bad_ids;
    nlohmann::json one = {{"seconds", t.seconds},
                          {"steps", t.steps},
                          {"edges_read", t.edges_read},
                          {"reached", t.reached},
                          {"reached_edges", t.reached_edges}};
    if (o.algorithm == graph_algorithm::bfs) {
      one["source"] = std::uint64_t{o.sources[i]} + g.id_base;
      one["bottom_up_steps"] = t.bottom_up_steps;
    }
    per.push_back(std::move(one));
  }
  const double runs = double(std::max<std::size_t>(1, o.runs.size()));
  const double mean_s = total_s / runs;
  r.runtime_ns = static_cast<std::uint64_t>(total_s * 1e9);
  r.read.runtime_ns = r.runtime_ns;
  r.read.ios = o.cache.reads;
  r.read.io_bytes = o.cache.bytes_read;
  r.errors = o.io.errors;
  r.timeouts = o.io.timeouts;
  r.errors_by_status = o.io.errors_by_status;

  const std::uint64_t used_bytes = edges_read * sizeof(std::uint32_t);
  nlohmann::json j = o.backend;
  j["algorithm"] = to_string(o.algorithm);
  j["access"] = to_string(c.graph.access);
  j["vertices"] = g.vertex_count;
  j["edges"] = g.edge_count();
  j["symmetric"] = g.symmetric;
  j["id_base"] = g.id_base;
  j["time_s"] = mean_s;
  j["time_note"] = o.algorithm == graph_algorithm::bfs ? "mean wall time per source"
                                                       : "wall time of the whole run";
  j["traversals"] = per;
  j["steps"] = steps;
  j["teps"] = total_s > 0 ? double(reached_edges) / total_s : 0.0;
  j["teps_note"] = "edges of the reached vertices per second (cc: every edge per second)";
  j["edges_read"] = edges_read;
  j["neighbour_bytes_used"] = used_bytes;
  j["bad_neighbour_ids"] = bad_ids;
  if (o.algorithm == graph_algorithm::bfs) j["bottom_up_steps"] = bottom_up;
  if (o.has_cache) {
    const std::uint64_t acc = o.cache.hits + o.cache.misses;
    j["cache"] = {{"hits", o.cache.hits},
                  {"misses", o.cache.misses},
                  {"hit_rate", acc == 0 ? 0.0 : double(o.cache.hits) / double(acc)},
                  {"reads", o.cache.reads},
                  {"bytes_read", o.cache.bytes_read},
                  {"evictions", o.cache.evictions},
                  {"failed_accesses", o.cache.failed_accesses},
                  {"io_errors", o.cache.io_errors}};
    j["ios"] = o.cache.reads;
    j["bytes_read"] = o.cache.bytes_read;
    j["io_amplification"] = used_bytes == 0 ? 0.0 : double(o.cache.bytes_read) / double(used_bytes);
  }
  add_load_times(j, c, g.edge_count() * sizeof(std::uint32_t), mean_s);
  j["breakdown"] = breakdown(o, c, mean_s);
  // The answer itself, in a form two runs (modes, machines, commits) compare at a glance: the
  // XXH64 of the first source's levels (int32 per vertex) or of the labels (uint32 per vertex).
  if (o.algorithm == graph_algorithm::bfs) {
    j["levels_xxh64"] = checksum_hex(
        checksum64(o.first_levels.data(), o.first_levels.size() * sizeof(std::int32_t)));
  } else {
    j["labels_xxh64"] =
        checksum_hex(checksum64(o.labels.data(), o.labels.size() * sizeof(std::uint32_t)));
  }
  j["verified"] = o.verified;
  if (o.verified) j["verify"] = {{"mismatches", o.verify.count}, {"first", o.verify.first}};
  r.tool_stats["graph"] = std::move(j);

  const bool io_failed = o.io.errors != 0 || o.cache.failed_accesses != 0;
  if (io_failed) r.tool_stats["failed_accesses"] = o.cache.failed_accesses;
  if (o.verify.count != 0 && !io_failed) {
    r.error = fmt::format("{} differs from the CPU reference at {} vertices; first: {}",
                          to_string(o.algorithm), o.verify.count, o.verify.first);
  }
  if (bad_ids != 0 && !io_failed) {
    r.error = fmt::format(
        "{} read {} neighbour ids that are no vertex of the graph (at or above "
        "its {} vertices) and skipped them: the storage holds other data than "
        "this graph",
        to_string(o.algorithm), bad_ids, g.vertex_count);
  }
  if (io_failed && o.cache.failed_accesses != 0 && r.errors == 0) {
    r.errors = o.cache.failed_accesses;  // accesses that got no data, without a failed I/O
  }
  if (!c.graph.dump.empty()) {
    try {
      if (o.algorithm == graph_algorithm::bfs)
        write_levels(c.graph.dump, o.first_levels, g.id_base);
      else
        write_labels(c.graph.dump, o.labels, g.id_base);
    } catch (const std::exception& e) {
      if (r.error.empty()) r.error = e.what();
    }
  }
  return r;
}

}  // namespace bam::apps
