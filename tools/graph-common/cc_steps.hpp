// cc_steps.hpp: API. Connected components by hooking and pointer jumping (Shiloach-Vishkin
// style), written once for a GPU warp and a CPU thread, over any neighbour accessor `Adj`. Every
// vertex starts as its own tree (label[v] = v). A hooking round reads every neighbour list (a
// warp per vertex, 32 consecutive elements per coalesced chunk); for an edge whose endpoints
// have different labels the larger label, when it is still a root, is lowered to the smaller
// (atomic min). A compress round points every vertex at its root. Rounds repeat until a hooking
// round finds every edge's endpoints labelled alike. Labels only decrease and stay within the
// component, so each component ends labelled with its smallest vertex id. An edge (u, v) hooks
// both ways, so a graph stored with one direction of each edge needs no reverse edges.
#pragma once
#include <cstdint>

#include "warp_ops.hpp"

namespace bam::apps {

struct cc_round_ref {
  std::uint32_t* labels = nullptr;
  const std::uint64_t* offsets = nullptr;
  unsigned* changed = nullptr;  ///< set when a hook found endpoints with different labels
  std::uint64_t vertices = 0;   ///< ids at or above it (read from storage) are counted in `bad`
  unsigned long long* bad = nullptr;
};

/// Hooks along every edge of `u`. Returns the neighbour elements this lane read.
template <class Adj>
BAM_HD BAM_FORCEINLINE std::uint64_t hook_vertex(const Adj& adj, const cc_round_ref& r,
                                                 std::uint32_t u, unsigned lane, unsigned lanes) {
  const std::uint64_t begin = r.offsets[u], end = r.offsets[u + 1];
  const std::uint32_t lu = load_relaxed(r.labels + u);
  std::uint64_t read = 0;
  bool differed = false;
  for (std::uint64_t i = begin + lane; i < end; i += lanes) {
    const std::uint32_t v = adj[i];
    ++read;
    if (v >= r.vertices) {
      count_bad_id(r.bad);
      continue;
    }
    const std::uint32_t lv = load_relaxed(r.labels + v);
    if (lv == lu) continue;
    differed = true;
    const std::uint32_t hi = lu > lv ? lu : lv, lo = lu > lv ? lv : lu;
    if (load_relaxed(r.labels + hi) == hi)
      device_atomic_ref<std::uint32_t>(r.labels[hi]).fetch_min(lo, relaxed);
  }
  if (differed) store_relaxed(r.changed, 1u);
  return read;
}

/// Points `v` at the root of its tree.
BAM_HD BAM_FORCEINLINE void compress_vertex(const cc_round_ref& r, std::uint32_t v) {
  std::uint32_t root = load_relaxed(r.labels + v);
  for (std::uint32_t up = load_relaxed(r.labels + root); up != root;
       up = load_relaxed(r.labels + root))
    root = up;
  store_relaxed(r.labels + v, root);
}

}  // namespace bam::apps
