// bam/array/warp.hpp: API. Warp coalescing of cache accesses (BaM dissertation §7.2.1): the
// active threads of a warp that touch the same line form a group (__match_any_sync); its leader
// acquires the line once with the group's size and broadcasts the slot; releases are grouped
// the same way. Host threads are groups of one. Correct for any active mask.
#pragma once
#include <cstddef>
#include <cstdint>

#include "bam/cache/cache_ref.hpp"
#include "bam/detail/macros.hpp"

namespace bam {

#if defined(__CUDACC__)
__device__ inline unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}
#endif

/// Pins `line` for the calling thread (one reference each) and returns its slot's data, or
/// nullptr when the line's read failed (nothing is held then). GPU: the calling thread's group
/// of active lanes with the same line does one acquire, and its leader counts the group's hits
/// and misses.
///
/// Groups of one warp never wait for each other here: a group whose leader waits for a slot
/// (every slot pinned) must not keep another group of its warp from using and releasing its
/// line. (The first version summed the counts over the whole warp with __reduce_add_sync after
/// the acquires: with more distinct lines in flight than slots, every warp held pins while one
/// of its groups waited for a slot, and the GPU deadlocked.)
template <class CacheRef>
BAM_HD std::byte* coalesced_acquire(const CacheRef& c, std::uint64_t line) {
#if BAM_DEVICE_CODE
  const unsigned mask = __activemask();
  const unsigned group = __match_any_sync(mask, static_cast<unsigned long long>(line));
  const int leader = __ffs(static_cast<int>(group)) - 1;
  unsigned long long addr = 0;
  if (lane_id() == static_cast<unsigned>(leader)) {
    const unsigned n = static_cast<unsigned>(__popc(group));
    const acquire_result r = c.acquire(line, n);
    if (r.ok) addr = reinterpret_cast<unsigned long long>(c.slot_data(r.slot));
    const unsigned misses = r.fetched ? 1u : 0u;
    c.count_accesses(r.ok ? n - misses : 0u, misses);
  }
  addr = __shfl_sync(group, addr, leader);
  __syncwarp(group);  // orders the leader's acquire before the members' loads
  return reinterpret_cast<std::byte*>(addr);
#else
  const acquire_result r = c.acquire(line, 1);
  c.count_accesses(r.ok && !r.fetched ? 1 : 0, r.fetched ? 1 : 0);
  return r.ok ? c.slot_data(r.slot) : nullptr;
#endif
}

/// Drops the calling thread's reference to `line` (taken by coalesced_acquire);
/// `dirtied`: this thread wrote to the line. GPU: grouped like coalesced_acquire, the leader
/// releases the group's references after every member's writes (__syncwarp).
template <class CacheRef>
BAM_HD void coalesced_release(const CacheRef& c, std::uint64_t line, bool dirtied) {
#if BAM_DEVICE_CODE
  const unsigned mask = __activemask();
  const unsigned group = __match_any_sync(mask, static_cast<unsigned long long>(line));
  const int leader = __ffs(static_cast<int>(group)) - 1;
  const bool any_dirty = __any_sync(group, dirtied) != 0;
  __syncwarp(group);  // members' writes before the leader's release
  if (lane_id() == static_cast<unsigned>(leader))
    c.release(line, static_cast<unsigned>(__popc(group)), any_dirty);
#else
  c.release(line, 1, dirtied);
#endif
}

}  // namespace bam
