// bfs_steps.hpp: API. One level of breadth-first search for one vertex, written once for a GPU
// warp and a CPU thread (a warp of one lane), over any neighbour accessor `Adj` (adj[i] is the
// i-th neighbour id: a plain pointer wrapper or a bam::array). A warp works on one vertex and
// reads its neighbour list in chunks of 32 consecutive elements, so each chunk is one coalesced
// access (through bam::array: one cache acquire per line the chunk touches). Top-down expands a
// frontier vertex; bottom-up (Beamer's direction optimization, symmetric graphs only) lets an
// unvisited vertex look for a parent in the current level and stops at the first it finds.
#pragma once
#include <cstdint>

#include "warp_ops.hpp"

namespace bam::apps {

inline constexpr std::int32_t unreached = -1;

/// Where a level writes: the levels array and the next frontier.
struct bfs_level_ref {
  std::int32_t* levels = nullptr;
  const std::uint64_t* offsets = nullptr;
  std::int32_t level = 0;  ///< the current frontier's level; discovered vertices get level + 1
  queue_out next{};
  std::uint64_t vertices = 0;  ///< ids at or above it (read from storage) are counted in `bad`
  unsigned long long* bad = nullptr;
};

/// Top-down: visits every neighbour of frontier vertex `v`, claiming the unreached ones for the
/// next level. Returns the neighbour elements this lane read.
template <class Adj>
BAM_HD BAM_FORCEINLINE std::uint64_t top_down_vertex(const Adj& adj, const bfs_level_ref& l,
                                                     std::uint32_t v, unsigned lane,
                                                     unsigned lanes) {
  const std::uint64_t begin = l.offsets[v], end = l.offsets[v + 1];
  std::uint64_t read = 0;
  // Every lane runs the same number of rounds, so the pushes see the whole warp.
  for (std::uint64_t base = begin; base < end; base += lanes) {
    const std::uint64_t i = base + lane;
    bool claimed = false;
    std::uint32_t n = 0;
    if (i < end) {
      n = static_cast<std::uint32_t>(adj[i]);
      ++read;
      if (n < l.vertices) {
        claimed =
            load_relaxed(l.levels + n) == unreached && claim(l.levels + n, unreached, l.level + 1);
      } else {
        count_bad_id(l.bad);
      }
    }
    push(l.next, claimed, n, claimed ? l.offsets[n + 1] - l.offsets[n] : 0);
  }
  return read;
}

/// Bottom-up: when `v` is unreached, looks for a neighbour in the current level and stops at
/// the first found (v joins the next level). Returns the neighbour elements this lane read.
template <class Adj>
BAM_HD BAM_FORCEINLINE std::uint64_t bottom_up_vertex(const Adj& adj, const bfs_level_ref& l,
                                                      std::uint32_t v, unsigned lane,
                                                      unsigned lanes) {
  const unsigned mask = active_lanes();
  if (load_relaxed(l.levels + v) != unreached) return 0;
  const std::uint64_t begin = l.offsets[v], end = l.offsets[v + 1];
  std::uint64_t read = 0;
  bool found = false;
  for (std::uint64_t base = begin; base < end && !found; base += lanes) {
    const std::uint64_t i = base + lane;
    bool parent = false;
    if (i < end) {
      const std::uint32_t n = adj[i];
      ++read;
      if (n < l.vertices)
        parent = load_relaxed(l.levels + n) == l.level;
      else
        count_bad_id(l.bad);
    }
    found = lanes_any(mask, parent);
  }
  // Only this warp writes v's level in a bottom-up step; others read it (relaxed).
  if (found && lane == 0) store_relaxed(l.levels + v, l.level + 1);
  push(l.next, found && lane == 0, v, end - begin);
  return read;
}

/// Beamer's switch: top-down while the frontier's edges are few against the unexplored ones,
/// bottom-up while the frontier is large; back to top-down when it shrinks again.
struct direction_rule {
  static constexpr std::uint64_t alpha = 15;  ///< bottom-up when m_f > m_u / alpha
  static constexpr std::uint64_t beta = 18;   ///< top-down when n_f < n / beta

  /// Whether the next level goes bottom-up. `bottom_up`: the last one did; m_f: the frontier's
  /// edges; m_u: edges of unreached vertices; n_f: the frontier's vertices; n: all vertices.
  static bool bottom_up_next(bool bottom_up, std::uint64_t m_f, std::uint64_t m_u,
                             std::uint64_t n_f, std::uint64_t n) {
    if (!bottom_up) return m_f > m_u / alpha;
    return n_f >= n / beta;
  }
};

}  // namespace bam::apps
