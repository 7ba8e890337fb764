// The CPU references of bfs and cc.
#include "reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <numeric>

#include "bam/graph/parallel.hpp"

namespace bam::apps {

std::vector<std::int32_t> sequential_levels(const graph::csr_graph& g, std::uint64_t source) {
  std::vector<std::int32_t> level(g.vertex_count, -1);
  std::vector<std::uint64_t> queue{source};
  level[source] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint64_t v = queue[head];
    for (std::uint64_t i = g.offsets[v]; i < g.offsets[v + 1]; ++i) {
      const std::uint64_t n = g.neighbour(i);
      if (level[n] == -1) {
        level[n] = level[v] + 1;
        queue.push_back(n);
      }
    }
  }
  return level;
}

namespace {
std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];  // path halving
    v = parent[v];
  }
  return v;
}
}  // namespace

std::vector<std::uint32_t> sequential_components(const graph::csr_graph& g) {
  std::vector<std::uint32_t> parent(g.vertex_count);
  std::iota(parent.begin(), parent.end(), 0u);
  for (std::uint64_t u = 0; u < g.vertex_count; ++u) {
    for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
      const std::uint32_t a = find_root(parent, static_cast<std::uint32_t>(u));
      const std::uint32_t b = find_root(parent, static_cast<std::uint32_t>(g.neighbour(i)));
      if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the smaller id stays the root
    }
  }
  for (std::uint64_t v = 0; v < g.vertex_count; ++v)
    parent[v] = find_root(parent, static_cast<std::uint32_t>(v));
  return parent;
}

namespace {

using graph::detail::parallel_for_workers;
using graph::detail::resolve_threads;

/// item(worker, i) for every i in [0, n), handed out `chunk` items at a time (one shared counter
/// increment per chunk, not per item) to at most `threads` workers.
template <class F>
void for_chunks(std::size_t n, std::size_t chunk, unsigned threads, F&& item) {
  parallel_for_workers((n + chunk - 1) / chunk, threads, [&](unsigned worker, std::size_t c) {
    for (std::size_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i)
      item(worker, i);
  });
}

}  // namespace

std::vector<std::int32_t> reference_levels(const graph::csr_graph& g, std::uint64_t source,
                                           unsigned threads) {
  const unsigned n = resolve_threads(threads);
  std::vector<std::int32_t> level(g.vertex_count, -1);
  level[source] = 0;
  std::vector<std::uint32_t> frontier{static_cast<std::uint32_t>(source)};
  std::vector<std::vector<std::uint32_t>> next(n);  // per worker
  for (std::int32_t depth = 1; !frontier.empty(); ++depth) {
    // With threads 0 (automatic), a small frontier is done on the calling thread alone: graphs
    // of thousands of levels (road networks, chains) would otherwise start and join the threads
    // once per level. A count given (the tests) is always used.
    const unsigned workers = threads == 0 && frontier.size() < 4096 ? 1 : n;
    for (auto& part : next)
      part.clear();
    for_chunks(frontier.size(), 64, workers, [&](unsigned worker, std::size_t k) {
      const std::uint32_t v = frontier[k];
      for (std::uint64_t i = g.offsets[v]; i < g.offsets[v + 1]; ++i) {
        const auto u = static_cast<std::uint32_t>(g.neighbour(i));
        std::atomic_ref<std::int32_t> l(level[u]);
        std::int32_t unseen = -1;
        if (l.load(std::memory_order_relaxed) == -1 &&
            l.compare_exchange_strong(unseen, depth, std::memory_order_relaxed))
          next[worker].push_back(u);  // exactly one thread claims each vertex
      }
    });
    frontier.clear();
    for (const auto& part : next)
      frontier.insert(frontier.end(), part.begin(), part.end());
  }
  return level;
}

std::vector<std::uint32_t> reference_components(const graph::csr_graph& g, unsigned threads) {
  const unsigned n = resolve_threads(threads);
  std::vector<std::uint32_t> parent(g.vertex_count);
  std::iota(parent.begin(), parent.end(), 0u);
  // Lock-free union-find: a parent is always a smaller id than its child, and only a root's
  // parent changes (compare-and-swap from itself to a smaller root), so finds may run while
  // other threads link, and the root of a component is its smallest id.
  auto find = [&parent](std::uint32_t v) {
    for (;;) {
      const std::uint32_t p =
          std::atomic_ref<std::uint32_t>(parent[v]).load(std::memory_order_relaxed);
      if (p == v) return v;
      const std::uint32_t gp =
          std::atomic_ref<std::uint32_t>(parent[p]).load(std::memory_order_relaxed);
      if (gp != p) {  // path halving; a lost race only leaves a longer path
        std::uint32_t seen = p;
        std::atomic_ref<std::uint32_t>(parent[v]).compare_exchange_weak(seen, gp,
                                                                        std::memory_order_relaxed);
      }
      v = gp;
    }
  };
  for_chunks(g.vertex_count, 1024, n, [&](unsigned, std::size_t u) {
    for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
      std::uint32_t a = find(static_cast<std::uint32_t>(u));
      std::uint32_t b = find(static_cast<std::uint32_t>(g.neighbour(i)));
      while (a != b) {
        if (a < b) std::swap(a, b);  // a: the larger root, linked under b
        std::uint32_t self = a;
        if (std::atomic_ref<std::uint32_t>(parent[a]).compare_exchange_strong(
                self, b, std::memory_order_relaxed))
          break;
        a = find(a);  // another thread linked a meanwhile
        b = find(b);
      }
    }
  });
  for_chunks(g.vertex_count, 4096, n, [&](unsigned, std::size_t v) {
    const std::uint32_t r = find(static_cast<std::uint32_t>(v));
    std::atomic_ref<std::uint32_t>(parent[v]).store(r, std::memory_order_relaxed);
  });
  return parent;
}

namespace {
template <class T>
mismatch compare(const std::vector<T>& got, const std::vector<T>& want, std::uint32_t id_base,
                 const char* what, bool is_id) {
  mismatch m;
  if (got.size() != want.size()) {
    m.count = std::max(got.size(), want.size());
    m.first = fmt::format("{} {} values for {} vertices", got.size(), what, want.size());
    return m;
  }
  for (std::size_t v = 0; v < got.size(); ++v) {
    if (got[v] == want[v]) continue;
    if (m.count++ == 0) {
      auto shown = [&](T x) { return is_id ? std::int64_t(x) + id_base : std::int64_t(x); };
      m.first = fmt::format("vertex {}: {} {}, the CPU reference {}", v + id_base, what,
                            shown(got[v]), shown(want[v]));
    }
  }
  return m;
}
}  // namespace

mismatch compare_levels(const std::vector<std::int32_t>& got, const std::vector<std::int32_t>& want,
                        std::uint32_t id_base) {
  return compare(got, want, id_base, "level", false);
}
mismatch compare_labels(const std::vector<std::uint32_t>& got,
                        const std::vector<std::uint32_t>& want, std::uint32_t id_base) {
  return compare(got, want, id_base, "label", true);
}

}  // namespace bam::apps
