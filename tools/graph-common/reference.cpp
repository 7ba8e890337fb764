// The CPU references of bfs and cc.
#include "reference.hpp"

#include <fmt/format.h>

#include <numeric>

namespace bam::apps {

std::vector<std::int32_t> reference_levels(const graph::csr_graph& g, std::uint64_t source) {
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

std::vector<std::uint32_t> reference_components(const graph::csr_graph& g) {
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
