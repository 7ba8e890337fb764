// bam/array/array.hpp: API. bam::array<T>: elements of type T over one or more ranges of a
// cache's dataset, read and written through the cache (BaM dissertation §7.1). Trivially
// copyable: pass it by value into kernels. Every access pins the element's line for its
// duration; on the GPU the accesses of a warp to one line are coalesced (§7.2.1): the active
// lanes that touch the same line form a group (__match_any_sync), its leader acquires the line
// once with the group's size and broadcasts the slot, and releases are grouped the same way.
// Host threads are groups of one. Correct for any active mask.
#pragma once
#include <cuda/std/bit>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "bam/array/element_access.hpp"
#include "bam/array/range.hpp"
#include "bam/cache/cache_ref.hpp"
#include "bam/detail/atomic.hpp"
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
/// nullptr when the line could not be read (nothing is held then; the access is counted in the
/// cache's failed_accesses). GPU: the calling thread's group of active lanes with the same line
/// does one acquire, and its leader counts the group's hits and misses (or failures).
///
/// Groups of one warp never wait for each other here: a group whose leader waits for a slot
/// (every slot pinned) must not keep another group of its warp from using and releasing its
/// line. (The first version summed the counts over the whole warp with __reduce_add_sync after
/// the acquires: with more distinct lines in flight than slots, every warp held pins while one
/// of its groups waited for a slot, and the GPU deadlocked.)
///
/// Force-inlined, as are the accesses over it and cache_ref::acquire: once the miss path grew
/// (the error paths of issue 14) nvcc's own heuristics outlined acquire in cache-bench's
/// measured kernel, a call with a 368-byte stack frame on every access, hits included. On a
/// miss, the NVMe command is the one call (queue_pair_ref::submit_and_wait_outlined, issue 20).
template <class CacheRef>
BAM_HD BAM_FORCEINLINE std::byte* coalesced_acquire(const CacheRef& c, std::uint64_t line) {
#if BAM_DEVICE_CODE
  const unsigned mask = __activemask();
  const unsigned group = __match_any_sync(mask, static_cast<unsigned long long>(line));
  const int leader = __ffs(static_cast<int>(group)) - 1;
  unsigned long long addr = 0;
  if (lane_id() == static_cast<unsigned>(leader)) {
    const unsigned n = static_cast<unsigned>(__popc(group));
    const acquire_result r = c.acquire(line, n);
    if (r.ok) {
      addr = reinterpret_cast<unsigned long long>(c.slot_data(r.slot));
      const unsigned misses = r.fetched ? 1u : 0u;
      c.count_accesses(n - misses, misses);
    } else {
      c.count_failed(n);
    }
  }
  addr = __shfl_sync(group, addr, leader);
  __syncwarp(group);  // orders the leader's acquire before the members' loads
  return reinterpret_cast<std::byte*>(addr);
#else
  const acquire_result r = c.acquire(line, 1);
  if (!r.ok) {
    c.count_failed(1);
    return nullptr;
  }
  c.count_accesses(r.fetched ? 0 : 1, r.fetched ? 1 : 0);
  return c.slot_data(r.slot);
#endif
}

/// Drops the calling thread's reference to `line` (taken by coalesced_acquire);
/// `dirtied`: this thread wrote to the line. GPU: grouped like coalesced_acquire, the leader
/// releases the group's references after every member's writes (__syncwarp).
template <class CacheRef>
BAM_HD BAM_FORCEINLINE void coalesced_release(const CacheRef& c, std::uint64_t line, bool dirtied) {
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

/// Where element i lives.
struct element_location {
  std::uint64_t line = 0;        ///< dataset line
  std::uint32_t offset = 0;      ///< byte offset in the line
  std::uint64_t line_first = 0;  ///< first element index (of the array) in that line
  std::uint64_t line_end = 0;    ///< one past the last element index in that line
};

template <class T, class CacheRef>
class array {
 public:
  static constexpr std::uint32_t max_ranges = 4;
  // An element never spans lines (locate's shifts and the division form both rely on it).
  static_assert(sizeof(T) <= min_line_bytes, "elements larger than the smallest cache line");
  using value_type = T;
  using cache_ref_type = CacheRef;

  array() = default;
  /// An array over one range; more may be appended with add_range.
  BAM_HD array(const CacheRef& c, const range<T>& r) : c_(c) {
    static_assert(std::is_trivially_copyable_v<array>, "kernels take arrays by value");
    add_range(r);
  }

  /// Appends `r` (its elements follow the current ones); false when max_ranges are in use or
  /// the range does not fit in the cache's dataset.
  BAM_HD bool add_range(const range<T>& r) {
    if (n_ranges_ == max_ranges || r.end_line(c_.line_bytes()) > c_.lines()) return false;
    ranges_[n_ranges_] = r;
    starts_[n_ranges_] = size_;
    size_ += r.elements;
    ++n_ranges_;
    return true;
  }

  BAM_HD std::uint64_t size() const { return size_; }
  BAM_HD const CacheRef& cache() const { return c_; }

  // Errors: an access whose line cannot be read (an I/O error or timeout, or no slot to be had)
  // is counted in the cache's failed_accesses, which cache::io_failed() reads after the threads
  // are done. The try_ accesses return false then and leave everything as it was. read, write
  // and atomic_add have no way to say so: in cache_error_mode::flag read returns T{} and write
  // and atomic_add do nothing (the count is the application's flag); in cache_error_mode::trap
  // they stop the program (__trap() on the GPU, std::abort() on the host).

  /// Element i (0 <= i < size()); on failure see "Errors" above.
  BAM_HD BAM_FORCEINLINE T operator[](std::uint64_t i) const { return read(i); }
  BAM_HD BAM_FORCEINLINE T read(std::uint64_t i) const {
    T v{};
    if (!try_read(i, v)) c_.fail_access();
    return v;
  }
  /// Element i into `out`; false (out unchanged) when its line could not be read.
  BAM_HD BAM_FORCEINLINE bool try_read(std::uint64_t i, T& out) const {
    return access(i, false, [&](T* p) { out = load_element(p); });
  }
  /// Stores v at i (the line becomes dirty; durable after eviction or cache::flush()); on
  /// failure see "Errors" above.
  BAM_HD BAM_FORCEINLINE void write(std::uint64_t i, const T& v) const {
    if (!try_write(i, v)) c_.fail_access();
  }
  /// Stores v at i; false (nothing stored) when its line could not be read.
  BAM_HD BAM_FORCEINLINE bool try_write(std::uint64_t i, const T& v) const {
    return access(i, true, [&](T* p) { store_element(p, v); });
  }
  /// Atomically adds v at i (device scope) and returns the previous value (integral or
  /// floating T); on failure see "Errors" above (T{} returned).
  BAM_HD BAM_FORCEINLINE T atomic_add(std::uint64_t i, const T& v) const {
    T old{};
    if (!try_atomic_add(i, v, old)) c_.fail_access();
    return old;
  }
  /// Atomically adds v at i, the previous value into `old`; false (nothing added, old
  /// unchanged) when its line could not be read.
  BAM_HD BAM_FORCEINLINE bool try_atomic_add(std::uint64_t i, const T& v, T& old) const {
    return access(i, true, [&](T* p) { old = device_atomic_ref<T>(*p).fetch_add(v, relaxed); });
  }

  /// Runs f(T*) on element i while its line is pinned; `write`: f modifies it. False (f not
  /// run) when the line could not be read.
  template <class F>
  BAM_HD BAM_FORCEINLINE bool access(std::uint64_t i, bool write, F&& f) const {
    const element_location at = locate(i);
    std::byte* base = coalesced_acquire(c_, at.line);
    if (base == nullptr) return false;
    f(reinterpret_cast<T*>(base + at.offset));
    coalesced_release(c_, at.line, write);
    return true;
  }

  BAM_HD element_location locate(std::uint64_t i) const {
    std::uint32_t r = 0;
    while (r + 1 < n_ranges_ && i >= starts_[r + 1])
      ++r;
    const std::uint64_t e = i - starts_[r];
    std::uint64_t per_line, in_line, lines_in;
    if constexpr (cuda::std::has_single_bit(sizeof(T))) {
      // Line sizes are powers of two (check_line_bytes): shifts, not a 64-bit division per access.
      const int shift = cuda::std::countr_zero(c_.line_bytes()) - cuda::std::countr_zero(sizeof(T));
      per_line = std::uint64_t{1} << shift;
      in_line = e & (per_line - 1);
      lines_in = e >> shift;
    } else {
      per_line = c_.line_bytes() / sizeof(T);
      in_line = e % per_line;
      lines_in = e / per_line;
    }
    element_location at;
    at.line = ranges_[r].first_line + lines_in;
    at.offset = static_cast<std::uint32_t>(in_line * sizeof(T));
    at.line_first = i - in_line;
    const std::uint64_t range_end = starts_[r] + ranges_[r].elements;
    at.line_end = at.line_first + per_line < range_end ? at.line_first + per_line : range_end;
    return at;
  }

 private:
  CacheRef c_{};
  range<T> ranges_[max_ranges]{};
  std::uint64_t starts_[max_ranges]{};
  std::uint64_t size_ = 0;
  std::uint32_t n_ranges_ = 0;
};

}  // namespace bam
