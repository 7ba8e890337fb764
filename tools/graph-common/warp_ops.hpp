// warp_ops.hpp: API. The few operations the graph kernels do differently as a GPU warp and as a
// CPU thread (a "warp" of one lane): an any-vote, a queue push that takes one atomic per warp,
// and relaxed loads, stores and claims of shared words. Everything else in bfs_steps.hpp and
// cc_steps.hpp is one source for both.
#pragma once
#include <cstdint>

#include "bam/detail/atomic.hpp"
#include "bam/detail/macros.hpp"

namespace bam::apps {

/// The lanes that cooperate on one vertex on the GPU (a CPU thread is a warp of one).
#if defined(__CUDACC__)
inline constexpr unsigned gpu_warp_lanes = 32;
#endif

template <class T>
BAM_HD BAM_FORCEINLINE T load_relaxed(const T* p) {
  return device_atomic_ref<T>(*const_cast<T*>(p)).load(relaxed);
}
template <class T>
BAM_HD BAM_FORCEINLINE void store_relaxed(T* p, T v) {
  device_atomic_ref<T>(*p).store(v, relaxed);
}
/// p: expected -> desired; true when this caller made the change.
template <class T>
BAM_HD BAM_FORCEINLINE bool claim(T* p, T expected, T desired) {
  return device_atomic_ref<T>(*p).compare_exchange_strong(expected, desired, relaxed, relaxed);
}

/// Counts one neighbour id read from storage that is no vertex of the graph (stale or foreign
/// data on the SSDs): the kernels skip it and the run fails (graph_run.hpp).
BAM_HD inline void count_bad_id(unsigned long long* bad) {
  device_atomic_ref<unsigned long long>(*bad).fetch_add(1, relaxed);
}

/// Whether `p` holds on any lane of `mask` (the lanes that work on one vertex together).
BAM_HD BAM_FORCEINLINE bool lanes_any(unsigned mask, bool p) {
#if BAM_DEVICE_CODE
  return __any_sync(mask, p) != 0;
#else
  (void)mask;
  return p;
#endif
}

/// The lanes active here (all threads of a warp that reach it together); 1 on the host.
BAM_HD BAM_FORCEINLINE unsigned active_lanes() {
#if BAM_DEVICE_CODE
  return __activemask();
#else
  return 1;
#endif
}

/// A frontier queue being filled: vertices, their count, and the sum of their degrees (the
/// direction heuristic's m_f).
struct queue_out {
  std::uint32_t* vertices = nullptr;
  unsigned long long* count = nullptr;
  unsigned long long* degrees = nullptr;
};

/// Appends `v` (of degree `deg`) where `want`; every active lane calls it. On the GPU the
/// lanes that push take their slots with one atomic per warp.
BAM_HD BAM_FORCEINLINE void push(const queue_out& q, bool want, std::uint32_t v,
                                 std::uint64_t deg) {
#if BAM_DEVICE_CODE
  const unsigned mask = __activemask();
  const unsigned pushers = __ballot_sync(mask, want);
  if (pushers == 0) return;
  const unsigned lane = threadIdx.x % 32;
  const int leader = __ffs(static_cast<int>(pushers)) - 1;
  unsigned long long base = 0;
  if (lane == static_cast<unsigned>(leader))
    base = atomicAdd(q.count, static_cast<unsigned long long>(__popc(pushers)));
  base = __shfl_sync(mask, base, leader);
  if (want) {
    q.vertices[base + __popc(pushers & ((1u << lane) - 1))] = v;
    atomicAdd(q.degrees, static_cast<unsigned long long>(deg));
  }
#else
  if (!want) return;
  using counter = device_atomic_ref<unsigned long long>;
  q.vertices[counter(*q.count).fetch_add(1, relaxed)] = v;
  counter(*q.degrees).fetch_add(deg, relaxed);
#endif
}

}  // namespace bam::apps
