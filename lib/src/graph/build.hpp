// graph/build.hpp: internal. Builds a csr_graph from an edge source, in parallel, with the
// edge_options applied, deterministically: every row ends up sorted by (neighbour, weight), so
// the result depends only on the multiset of edges, never on the thread count or the order in
// which threads placed them.
//
// A Source has `std::size_t chunks() const` and `template <class F> void visit(std::size_t c,
// F&& f) const` that calls f(u, v, w) for each edge of chunk c (u, v < vertex_count; w ignored
// when unweighted). It is visited twice (count, then place), so a generator regenerates its
// edges rather than storing them. Memory: offsets (8 B a vertex), the neighbours (and weights)
// once, and, when dedup or self-loop removal shrinks rows, a second compacted copy.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "bam/graph/csr.hpp"
#include "parallel.hpp"

namespace bam::graph::detail {

inline constexpr std::size_t rows_per_block = 4096;

template <class Id>
std::vector<Id>& neighbours_of(csr_graph& g) {
  if constexpr (sizeof(Id) == 4) {
    return g.neighbours32;
  } else {
    return g.neighbours64;
  }
}

/// Sorts every row of g by (neighbour, weight); with `dedup`, keeps the first of each neighbour
/// (the smallest weight) and compacts the rows.
template <class Id>
void sort_rows(csr_graph& g, bool dedup, unsigned threads) {
  const std::uint64_t n = g.vertex_count;
  std::vector<Id>& nbr = neighbours_of<Id>(g);
  const bool weighted = !g.weights.empty();
  std::vector<std::uint64_t> kept;
  if (dedup) kept.assign(n + 1, 0);
  const std::size_t blocks = (n + rows_per_block - 1) / rows_per_block;
  parallel_for(blocks, threads, [&](std::size_t b) {
    std::vector<std::pair<Id, float>> row;
    const std::uint64_t end = std::min<std::uint64_t>(n, (b + 1) * rows_per_block);
    for (std::uint64_t u = b * rows_per_block; u < end; ++u) {
      const std::uint64_t lo = g.offsets[u], hi = g.offsets[u + 1];
      std::uint64_t len = hi - lo;
      if (!weighted) {
        std::sort(nbr.begin() + lo, nbr.begin() + hi);
        if (dedup) len = std::unique(nbr.begin() + lo, nbr.begin() + hi) - (nbr.begin() + lo);
      } else if (len > 1) {
        row.resize(len);
        for (std::uint64_t i = 0; i < len; ++i)
          row[i] = {nbr[lo + i], g.weights[lo + i]};
        std::sort(row.begin(), row.end());
        if (dedup) {
          len = std::unique(row.begin(), row.end(),
                            [](const auto& x, const auto& y) { return x.first == y.first; }) -
                row.begin();
        }
        for (std::uint64_t i = 0; i < len; ++i) {
          nbr[lo + i] = row[i].first;
          g.weights[lo + i] = row[i].second;
        }
      }
      if (dedup) kept[u] = len;
    }
  });
  if (!dedup) return;
  // Compact into fresh arrays: offsets of the kept counts, rows copied block by block.
  std::uint64_t total = 0;
  for (std::uint64_t u = 0; u < n; ++u) {
    const std::uint64_t k = kept[u];
    kept[u] = total;
    total += k;
  }
  kept[n] = total;
  if (total == g.edge_count()) return;
  std::vector<Id> out(total);
  std::vector<float> out_w(weighted ? total : 0);
  parallel_for(blocks, threads, [&](std::size_t b) {
    const std::uint64_t end = std::min<std::uint64_t>(n, (b + 1) * rows_per_block);
    for (std::uint64_t u = b * rows_per_block; u < end; ++u) {
      const std::uint64_t len = kept[u + 1] - kept[u];
      std::copy_n(nbr.begin() + g.offsets[u], len, out.begin() + kept[u]);
      if (weighted) std::copy_n(g.weights.begin() + g.offsets[u], len, out_w.begin() + kept[u]);
    }
  });
  std::vector<Id>().swap(nbr);
  nbr = std::move(out);
  g.weights = std::move(out_w);
  g.offsets = std::move(kept);
}

/// The CSR of the source's edges with `o` applied (rows sorted). `symmetric` is set when `o`
/// symmetrizes.
template <class Id, class Source>
csr_graph build_csr(const Source& src, std::uint64_t vertex_count, bool weighted,
                    const edge_options& o) {
  csr_graph g;
  g.vertex_count = vertex_count;
  g.symmetric = o.symmetrize;
  auto& off = g.offsets;
  off.assign(vertex_count + 1, 0);
  const unsigned threads = resolve_threads(o.threads);
  const bool sym = o.symmetrize, drop = o.drop_self_loops;
  // Pass 1: out-degrees into off[u].
  parallel_for(src.chunks(), threads, [&](std::size_t c) {
    src.visit(c, [&](std::uint64_t u, std::uint64_t v, float) {
      if (u == v) {
        if (!drop) std::atomic_ref<std::uint64_t>(off[u]).fetch_add(1, std::memory_order_relaxed);
        return;
      }
      std::atomic_ref<std::uint64_t>(off[u]).fetch_add(1, std::memory_order_relaxed);
      if (sym) std::atomic_ref<std::uint64_t>(off[v]).fetch_add(1, std::memory_order_relaxed);
    });
  });
  // Inclusive prefix sums: off[u] = the end of row u. Placing an edge decrements it, so that
  // once every edge is placed off[u] is the start of row u.
  std::uint64_t total = 0;
  for (std::uint64_t u = 0; u < vertex_count; ++u) {
    total += off[u];
    off[u] = total;
  }
  off[vertex_count] = total;
  std::vector<Id>& nbr = neighbours_of<Id>(g);
  nbr.resize(total);
  if (weighted) g.weights.resize(total);
  auto place = [&](std::uint64_t u, std::uint64_t v, float w) {
    const std::uint64_t at =
        std::atomic_ref<std::uint64_t>(off[u]).fetch_sub(1, std::memory_order_relaxed) - 1;
    nbr[at] = static_cast<Id>(v);
    if (weighted) g.weights[at] = w;
  };
  parallel_for(src.chunks(), threads, [&](std::size_t c) {
    src.visit(c, [&](std::uint64_t u, std::uint64_t v, float w) {
      if (u == v) {
        if (!drop) place(u, v, w);
        return;
      }
      place(u, v, w);
      if (sym) place(v, u, w);
    });
  });
  sort_rows<Id>(g, o.dedup, threads);
  return g;
}

/// A csr_graph's own edges as a Source (blocks of rows).
struct csr_source {
  const csr_graph& g;
  std::size_t chunks() const { return (g.vertex_count + rows_per_block - 1) / rows_per_block; }
  template <class F>
  void visit(std::size_t c, F&& f) const {
    const std::uint64_t end = std::min<std::uint64_t>(g.vertex_count, (c + 1) * rows_per_block);
    const bool weighted = !g.weights.empty();
    for (std::uint64_t u = c * rows_per_block; u < end; ++u) {
      for (std::uint64_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
        f(u, g.neighbour(i), weighted ? g.weights[i] : 1.0f);
      }
    }
  }
};

}  // namespace bam::graph::detail
