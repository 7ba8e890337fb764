// bfs and cc on CPU threads through the cache of a host storage context: the run of one point.
#include "host_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <thread>

#include "bam/config/config_io.hpp"
#include "bam/storage/host_context.hpp"
#include "bfs_steps.hpp"
#include "cc_steps.hpp"
#include "graph_storage.hpp"

namespace bam::apps {
namespace {

using neighbour_array = host_context::array_type<std::uint32_t>;

/// Runs f(i) for i in [0, n) on `threads` CPU threads, in chunks taken in turn; returns the sum
/// of what f returned.
template <class F>
std::uint64_t parallel_sum(std::uint64_t n, std::uint32_t threads, F&& f) {
  constexpr std::uint64_t chunk = 64;
  std::atomic<std::uint64_t> next{0}, sum{0};
  auto work = [&] {
    std::uint64_t mine = 0;
    for (std::uint64_t b; (b = next.fetch_add(chunk, std::memory_order_relaxed)) < n;) {
      for (std::uint64_t i = b; i < std::min(n, b + chunk); ++i)
        mine += f(i);
    }
    sum.fetch_add(mine, std::memory_order_relaxed);
  };
  std::vector<std::thread> pool;
  for (std::uint32_t t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (auto& t : pool)
    t.join();
  return sum.load();
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Level-synchronous bfs from `source` into `levels`.
traversal host_bfs(const neighbour_array& adj, const graph::csr_graph& g, std::uint32_t source,
                   const run_config& c, std::vector<std::int32_t>& levels) {
  const std::uint64_t n = g.vertex_count;
  const std::uint32_t threads = c.workload.threads;
  const bool may_go_bottom_up = c.graph.direction_optimizing && g.symmetric;
  traversal t;
  levels.assign(n, unreached);
  std::vector<std::uint32_t> frontier{source}, next(n);
  unsigned long long next_count = 0, next_degrees = 0, bad = 0;
  std::uint64_t m_f = g.offsets[source + 1] - g.offsets[source];
  std::uint64_t m_u = g.edge_count() - m_f;
  bool bottom_up = false;
  const auto t0 = std::chrono::steady_clock::now();
  levels[source] = 0;
  for (std::int32_t level = 0; !frontier.empty(); ++level) {
    bottom_up =
        may_go_bottom_up && direction_rule::bottom_up_next(bottom_up, m_f, m_u, frontier.size(), n);
    next_count = next_degrees = 0;
    const bfs_level_ref l{levels.data(),
                          g.offsets.data(),
                          level,
                          queue_out{next.data(), &next_count, &next_degrees},
                          n,
                          &bad};
    if (bottom_up) {
      t.edges_read += parallel_sum(n, threads, [&](std::uint64_t v) {
        return bottom_up_vertex(adj, l, static_cast<std::uint32_t>(v), 0, 1);
      });
      ++t.bottom_up_steps;
    } else {
      t.edges_read += parallel_sum(frontier.size(), threads, [&](std::uint64_t i) {
        return top_down_vertex(adj, l, frontier[i], 0, 1);
      });
    }
    frontier.assign(next.begin(), next.begin() + static_cast<std::ptrdiff_t>(next_count));
    m_f = next_degrees;
    m_u -= std::min(m_u, m_f);
    ++t.steps;
  }
  t.seconds = since(t0);
  t.bad_ids = bad;
  count_reached(t, g, levels);
  return t;
}

/// Connected components into `labels`.
traversal host_cc(const neighbour_array& adj, const graph::csr_graph& g, const run_config& c,
                  std::vector<std::uint32_t>& labels) {
  const std::uint64_t n = g.vertex_count;
  const std::uint32_t threads = c.workload.threads;
  traversal t;
  labels.resize(n);
  std::iota(labels.begin(), labels.end(), 0u);
  unsigned changed = 1;
  unsigned long long bad = 0;
  const cc_round_ref r{labels.data(), g.offsets.data(), &changed, n, &bad};
  const auto t0 = std::chrono::steady_clock::now();
  while (changed != 0) {
    changed = 0;
    t.edges_read += parallel_sum(n, threads, [&](std::uint64_t u) {
      return hook_vertex(adj, r, static_cast<std::uint32_t>(u), 0, 1);
    });
    parallel_sum(n, threads, [&](std::uint64_t v) {
      compress_vertex(r, static_cast<std::uint32_t>(v));
      return std::uint64_t{0};
    });
    ++t.steps;
  }
  t.seconds = since(t0);
  t.bad_ids = bad;
  t.reached = n;
  t.reached_edges = g.edge_count();
  return t;
}

/// A fresh cache over the neighbour array; every line read once for bam-preloaded.
neighbour_array fresh_cache(host_context& ctx, const graph::csr_graph& g, const run_config& c) {
  ctx.build_cache();
  const neighbour_array adj =
      ctx.array<std::uint32_t>(neighbours_region, std::max<std::uint64_t>(1, g.edge_count()));
  if (c.graph.access == graph_access::bam_preloaded) {
    const std::uint64_t per_line = c.cache.line_size / sizeof(std::uint32_t);
    parallel_sum((adj.size() + per_line - 1) / per_line, c.workload.threads,
                 [&](std::uint64_t l) { return std::uint64_t{adj[l * per_line]}; });
    ctx.cache().reset_stats();
  }
  return adj;
}

/// Ends a traversal's cache: its counters into the outcome.
void take_cache(host_context& ctx, graph_outcome& o) {
  const cache_stats s = ctx.cache().stats();
  o.cache.add(s);
  add_cache_errors(s, o.io);
}

}  // namespace

void check_host_access(const run_config& c) {
  if (c.graph.access == graph_access::bam || c.graph.access == graph_access::bam_preloaded) return;
  throw config_error("graph.access",
                     fmt::format("\"{}\" needs GPU threads (storage.backend emulated), allowed "
                                 "bam|bam-preloaded with backend \"{}\"",
                                 to_string(c.graph.access), to_string(c.storage.backend)));
}

graph_outcome run_on_host(graph_algorithm a, const graph::csr_graph& g, const run_config& c,
                          const std::vector<std::uint32_t>& sources, bool verify) {
  check_host_access(c);
  check_app_graph(g, "the graph");
  host_context ctx(storage_config_of(c, g), layout_options{.manifest = false});
  put_graph(ctx, g, c);
  graph_outcome o;
  o.algorithm = a;
  o.has_cache = true;
  if (a == graph_algorithm::bfs) {
    o.sources = sources;
    std::vector<std::int32_t> levels;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const neighbour_array adj = fresh_cache(ctx, g, c);
      o.runs.push_back(host_bfs(adj, g, sources[i], c, levels));
      take_cache(ctx, o);
      if (verify) verify_levels(o, g, sources[i], levels);
      if (i == 0) o.first_levels = levels;
    }
  } else {
    const neighbour_array adj = fresh_cache(ctx, g, c);
    o.runs.push_back(host_cc(adj, g, c, o.labels));
    take_cache(ctx, o);
    if (verify) verify_labels(o, g);
  }
  o.backend["storage"] = ctx.describe();
  o.backend["threads"] = c.workload.threads;
  o.backend["cache_capacity"] = ctx.config().cache.capacity;
  ctx.close();
  return o;
}

}  // namespace bam::apps
