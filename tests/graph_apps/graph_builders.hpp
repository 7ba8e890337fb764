// Small in-memory graphs for the graph application tests: CSR from an edge list, and a seeded
// random graph with several components, isolated vertices and one hub.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "bam/detail/hash.hpp"
#include "bam/graph/csr.hpp"

namespace bam::test {

using edge_list = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

/// CSR of `edges` over n vertices, in the given order per vertex; `symmetric`: add (v, u) for
/// each (u, v) (and say so).
inline graph::csr_graph csr_of(std::uint64_t n, edge_list edges, bool symmetric) {
  if (symmetric) {
    const std::size_t m = edges.size();
    for (std::size_t i = 0; i < m; ++i)
      edges.emplace_back(edges[i].second, edges[i].first);
  }
  std::stable_sort(edges.begin(), edges.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  graph::csr_graph g;
  g.vertex_count = n;
  g.symmetric = symmetric;
  g.offsets.assign(n + 1, 0);
  for (const auto& e : edges)
    ++g.offsets[e.first + 1];
  for (std::uint64_t v = 0; v < n; ++v)
    g.offsets[v + 1] += g.offsets[v];
  for (const auto& e : edges)
    g.neighbours32.push_back(e.second);
  return g;
}

/// `components` random components of about n / components vertices each (edges only inside a
/// component), every 17th vertex isolated, vertex 1 a hub joined to `hub_degree` vertices of
/// its component; symmetric.
inline graph::csr_graph random_graph(std::uint32_t n, std::uint32_t components,
                                     std::uint32_t degree, std::uint32_t hub_degree,
                                     std::uint64_t seed) {
  split_mix64 rng{seed};
  edge_list edges;
  auto component_of = [&](std::uint32_t v) { return v % components; };
  auto in_component = [&](std::uint32_t c) {
    std::uint32_t v;
    do {
      v = static_cast<std::uint32_t>(rng.next() % n);
    } while (component_of(v) != c || v % 17 == 0);
    return v;
  };
  for (std::uint32_t u = 0; u < n; ++u) {
    if (u % 17 == 0) continue;
    for (std::uint32_t k = 0; k < degree / 2; ++k)
      edges.emplace_back(u, in_component(component_of(u)));
  }
  for (std::uint32_t k = 0; k < hub_degree; ++k)
    edges.emplace_back(1u, in_component(component_of(1)));
  return csr_of(n, edges, true);
}

}  // namespace bam::test
