// graph/build.hpp: internal. Builds a csr_graph from an edge source, in parallel, with the
// edge_options applied, deterministically: every row ends up sorted by (neighbour, weight), so
// the result depends only on the multiset of edges, never on the thread count or the order in
// which threads placed them.
//
// A Source has `std::size_t chunks() const` and `template <class F> void visit(std::size_t c,
// F&& f) const` that calls f(u, v, w) for each edge of chunk c (u, v < vertex_count; w ignored
// when unweighted), and may have `void release(std::size_t c)`, called once chunk c is visited
// (a loader frees its parsed text there). Each chunk is visited once, by one thread.
#pragma once
#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "bam/graph/csr.hpp"
#include "bam/graph/parallel.hpp"

namespace bam::graph::detail {

inline constexpr std::size_t rows_per_block = 4096;

/// v.resize(n) for a large array, asking for transparent huge pages before the pages are first
/// touched (the builders' random accesses otherwise miss the TLB on nearly every edge).
template <class T>
void resize_huge(std::vector<T>& v, std::size_t n) {
  constexpr std::size_t huge = std::size_t{2} << 20;
  if (n * sizeof(T) >= 4 * huge && v.capacity() < n) {
    std::vector<T>().swap(v);
    v.reserve(n);
    const auto at = reinterpret_cast<std::uintptr_t>(v.data());
    const std::uintptr_t lo = (at + huge - 1) & ~(huge - 1);
    const std::uintptr_t hi = (at + n * sizeof(T)) & ~(huge - 1);
    if (hi > lo) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
  }
  v.resize(n);
}

/// A float's bits as an unsigned key in IEEE total order (-NaN < -inf < ... < -0 < +0 < ... <
/// +inf < +NaN): rows sort one way whatever weights a file holds.
inline std::uint32_t float_key(float f) {
  const auto b = std::bit_cast<std::uint32_t>(f);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

template <class Id>
std::vector<Id>& neighbours_of(csr_graph& g) {
  if constexpr (sizeof(Id) == 4) {
    return g.neighbours32;
  } else {
    return g.neighbours64;
  }
}

/// Memory for blocks, carved from 4 MiB mappings that ask for transparent huge pages (fewer
/// page faults and TLB misses than small heap blocks), one worker's at a time; all returned to
/// the system when the arena goes.
class block_arena {
 public:
  static constexpr std::size_t slab_bytes = std::size_t{4} << 20;
  block_arena() = default;
  block_arena(const block_arena&) = delete;
  block_arena& operator=(const block_arena&) = delete;
  block_arena(block_arena&& o) noexcept : slabs_(std::move(o.slabs_)), used_(o.used_) {
    o.slabs_.clear();
  }
  ~block_arena() {
    for (void* s : slabs_)
      ::munmap(s, slab_bytes);
  }
  void* take(std::size_t bytes) {
    if (slabs_.empty() || used_ + bytes > slab_bytes) {
      void* s =
          ::mmap(nullptr, slab_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (s == MAP_FAILED) throw std::bad_alloc();
      ::madvise(s, slab_bytes, MADV_HUGEPAGE);
      slabs_.push_back(s);
      used_ = 0;
    }
    void* p = static_cast<char*>(slabs_.back()) + used_;
    used_ += bytes;
    return p;
  }

 private:
  std::vector<void*> slabs_;
  std::size_t used_ = 0;
};

/// The edges of one partition of rows, as the workers of pass 1 appended them: per worker and
/// partition a list of fixed-size blocks from the worker's arena (no locks, no atomics; at most
/// one partly filled block per worker and partition).
template <class Rec>
class partitioned_edges {
 public:
  static constexpr std::size_t block_records = (std::size_t{32} << 10) / sizeof(Rec);

  partitioned_edges(std::size_t partitions, unsigned workers)
      : partitions_(partitions), lanes_(partitions * workers), arenas_(workers) {}

  void push(unsigned worker, std::size_t p, const Rec& r) {
    lane& l = lanes_[worker * partitions_ + p];
    if (l.fill == 0) {
      l.blocks.push_back(static_cast<Rec*>(arenas_[worker].take(block_records * sizeof(Rec))));
    }
    l.blocks.back()[l.fill] = r;
    if (++l.fill == block_records) l.fill = 0;
  }
  /// f(record) for every record of partition p.
  template <class F>
  void for_each(std::size_t p, F&& f) const {
    for (std::size_t k = p; k < lanes_.size(); k += partitions_) {
      const lane& l = lanes_[k];
      for (std::size_t b = 0; b < l.blocks.size(); ++b) {
        const std::size_t n = b + 1 == l.blocks.size() && l.fill ? l.fill : block_records;
        for (std::size_t i = 0; i < n; ++i)
          f(l.blocks[b][i]);
      }
    }
  }
  /// The records of partition p.
  std::uint64_t size(std::size_t p) const {
    std::uint64_t n = 0;
    for (std::size_t k = p; k < lanes_.size(); k += partitions_) {
      const lane& l = lanes_[k];
      n += l.blocks.size() * block_records - (l.fill ? block_records - l.fill : 0);
    }
    return n;
  }

 private:
  struct lane {
    std::vector<Rec*> blocks;
    std::size_t fill = 0;  ///< records in the last block, 0 when it is full (or none)
  };
  std::size_t partitions_;
  std::vector<lane> lanes_;
  std::vector<block_arena> arenas_;
};

template <class Id, bool Weighted>
struct edge_record;
template <class Id>
struct edge_record<Id, false> {
  Id u, v;
};
template <class Id>
struct edge_record<Id, true> {
  Id u, v;
  float w;
};

template <class Source>
void release_chunk(Source& src, std::size_t c) {
  if constexpr (requires { src.release(c); }) src.release(c);
}

/// The CSR of the source's edges with `o` applied (rows sorted). `symmetric` is set when `o`
/// symmetrizes.
///  1. Every chunk of the source is visited once; each edge (and its reverse) is appended to the
///     partition of its source vertex (2^row_bits consecutive rows, at most 1024 partitions);
///     the source may free the chunk then (a `release(c)` member).
///  2. Each partition, on its own thread: row counts, placement into its stretch of the
///     neighbour array, sort (and dedup) of its rows.
///  3. The stretches moved together; offsets from the row lengths.
/// Peak memory: the records (8 or 12 bytes a directed edge with 32-bit ids, 16 or 24 with 64-bit
/// ids; returned to the system when the build ends) and the CSR arrays, once each.
template <class Id, bool Weighted, class Source>
csr_graph build_csr_as(Source& src, std::uint64_t vertex_count, const edge_options& o) {
  using rec = edge_record<Id, Weighted>;
  csr_graph g;
  g.vertex_count = vertex_count;
  g.symmetric = o.symmetrize;
  const unsigned threads = resolve_threads(o.threads);
  unsigned row_bits = 10;
  while (row_bits < 63 && (vertex_count >> row_bits) > 1024)
    ++row_bits;
  const std::size_t parts = static_cast<std::size_t>((vertex_count >> row_bits) + 1);
  const bool sym = o.symmetrize, drop = o.drop_self_loops;

  // 1. Append the edges to their partitions.
  partitioned_edges<rec> edges(parts, threads);
  parallel_for_workers(src.chunks(), threads, [&](unsigned worker, std::size_t c) {
    src.visit(c, [&](std::uint64_t u, std::uint64_t v, float w) {
      rec r;
      r.u = static_cast<Id>(u);
      r.v = static_cast<Id>(v);
      if constexpr (Weighted) r.w = w;
      if (u == v) {
        if (!drop) edges.push(worker, u >> row_bits, r);
        return;
      }
      edges.push(worker, u >> row_bits, r);
      if (sym) {
        std::swap(r.u, r.v);
        edges.push(worker, v >> row_bits, r);
      }
    });
    release_chunk(src, c);
  });

  // 2. Each partition's rows, placed at the partition's place in one array (as many entries as
  //    it has records), sorted (and deduplicated) there; row lengths in off, kept entries in
  //    part_kept.
  auto& off = g.offsets;
  resize_huge(off, vertex_count + 1);
  std::vector<std::uint64_t> part_at(parts + 1, 0);
  for (std::size_t p = 0; p < parts; ++p)
    part_at[p + 1] = part_at[p] + edges.size(p);
  std::vector<Id>& nbr = neighbours_of<Id>(g);
  resize_huge(nbr, part_at[parts]);
  if constexpr (Weighted) resize_huge(g.weights, part_at[parts]);
  std::vector<std::uint64_t> part_kept(parts + 1, 0);
  auto rows_of = [&](std::size_t p) {
    return std::min<std::uint64_t>(vertex_count - (std::uint64_t{p} << row_bits),
                                   std::uint64_t{1} << row_bits);
  };
  parallel_for(parts, threads, [&](std::size_t p) {
    const std::uint64_t base = std::uint64_t{p} << row_bits;
    const std::uint64_t rows = rows_of(p);
    const auto nb = nbr.begin() + static_cast<std::ptrdiff_t>(part_at[p]);
    float* const wt = Weighted ? g.weights.data() + part_at[p] : nullptr;
    std::vector<std::uint64_t> at(rows + 1, 0);
    edges.for_each(p, [&](const rec& r) { ++at[r.u - base + 1]; });
    for (std::uint64_t i = 0; i < rows; ++i)
      at[i + 1] += at[i];
    std::vector<std::uint64_t> next(at.begin(), at.end() - 1);
    edges.for_each(p, [&](const rec& r) {
      const std::uint64_t k = next[r.u - base]++;
      nb[k] = r.v;
      if constexpr (Weighted) wt[k] = r.w;
    });
    std::vector<std::uint64_t>().swap(next);
    // Sort each row by (neighbour, weight), dedup, and close the gaps.
    std::vector<std::pair<Id, float>> row;
    std::uint64_t out = 0;
    for (std::uint64_t i = 0; i < rows; ++i) {
      const std::uint64_t lo = at[i], hi = at[i + 1];
      std::uint64_t len = hi - lo;
      if constexpr (!Weighted) {
        std::sort(nb + lo, nb + hi);
        if (o.dedup) len = std::unique(nb + lo, nb + hi) - (nb + lo);
        std::copy(nb + lo, nb + lo + len, nb + out);
      } else {
        row.resize(len);
        for (std::uint64_t k = 0; k < len; ++k)
          row[k] = {nb[lo + k], wt[lo + k]};
        std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) {
          return x.first != y.first ? x.first < y.first : float_key(x.second) < float_key(y.second);
        });
        if (o.dedup) {
          len = std::unique(row.begin(), row.end(),
                            [](const auto& x, const auto& y) { return x.first == y.first; }) -
                row.begin();
        }
        for (std::uint64_t k = 0; k < len; ++k) {
          nb[out + k] = row[k].first;
          wt[out + k] = row[k].second;
        }
      }
      off[base + i] = len;
      out += len;
    }
    part_kept[p + 1] = out;
  });

  // 3. Close the gaps between partitions (each moves left, in order: it never overwrites a
  //    partition not yet moved), then the offsets.
  for (std::size_t p = 0; p < parts; ++p)
    part_kept[p + 1] += part_kept[p];
  const std::uint64_t total = part_kept[parts];
  if (total != part_at[parts]) {
    for (std::size_t p = 1; p < parts; ++p) {
      const std::uint64_t n = part_kept[p + 1] - part_kept[p];
      std::memmove(nbr.data() + part_kept[p], nbr.data() + part_at[p], n * sizeof(Id));
      if constexpr (Weighted) {
        std::memmove(g.weights.data() + part_kept[p], g.weights.data() + part_at[p],
                     n * sizeof(float));
      }
    }
    nbr.resize(total);
    if constexpr (Weighted) g.weights.resize(total);
  }
  parallel_for(parts, threads, [&](std::size_t p) {
    const std::uint64_t base = std::uint64_t{p} << row_bits;
    std::uint64_t at = part_kept[p];
    for (std::uint64_t i = 0, rows = rows_of(p); i < rows; ++i) {
      const std::uint64_t len = off[base + i];
      off[base + i] = at;
      at += len;
    }
  });
  off[vertex_count] = total;
  return g;
}

template <class Id, class Source>
csr_graph build_csr(Source&& src, std::uint64_t vertex_count, bool weighted,
                    const edge_options& o) {
  return weighted ? build_csr_as<Id, true>(src, vertex_count, o)
                  : build_csr_as<Id, false>(src, vertex_count, o);
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
