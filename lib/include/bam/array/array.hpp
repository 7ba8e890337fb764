// bam/array/array.hpp: API. bam::array<T>: elements of type T over one or more ranges of a
// cache's dataset, read and written through the cache (BaM dissertation §7.1). Trivially
// copyable: pass it by value into kernels. Every access pins the element's line for its
// duration; on the GPU accesses of a warp to one line are coalesced (bam/array/warp.hpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "bam/array/element_access.hpp"
#include "bam/array/range.hpp"
#include "bam/array/warp.hpp"
#include "bam/detail/atomic.hpp"
#include "bam/detail/macros.hpp"

namespace bam {

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
  using value_type = T;
  using cache_ref_type = CacheRef;

  array() = default;
  /// An array over one range; more may be appended with add_range.
  BAM_HD array(const CacheRef& c, const range<T>& r) : c_(c) { add_range(r); }

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

  /// Element i (0 <= i < size()); T{} when its line could not be read.
  BAM_HD T operator[](std::uint64_t i) const { return read(i); }
  BAM_HD T read(std::uint64_t i) const {
    T v{};
    access(i, false, [&](T* p) { v = load_element(p); });
    return v;
  }
  /// Stores v at i (the line becomes dirty; durable after eviction or cache::flush()).
  BAM_HD void write(std::uint64_t i, const T& v) const {
    access(i, true, [&](T* p) { store_element(p, v); });
  }
  /// Atomically adds v at i (device scope) and returns the previous value (integral or
  /// floating T).
  BAM_HD T atomic_add(std::uint64_t i, const T& v) const {
    T old{};
    access(i, true, [&](T* p) { old = device_atomic_ref<T>(*p).fetch_add(v, relaxed); });
    return old;
  }

  /// Runs f(T*) on element i while its line is pinned; `write`: f modifies it.
  template <class F>
  BAM_HD void access(std::uint64_t i, bool write, F&& f) const {
    const element_location at = locate(i);
    std::byte* base = coalesced_acquire(c_, at.line);
    if (base == nullptr) return;
    f(reinterpret_cast<T*>(base + at.offset));
    coalesced_release(c_, at.line, write);
  }

  BAM_HD element_location locate(std::uint64_t i) const {
    std::uint32_t r = 0;
    while (r + 1 < n_ranges_ && i >= starts_[r + 1])
      ++r;
    const std::uint64_t per_line = c_.line_bytes() / sizeof(T);
    const std::uint64_t e = i - starts_[r];
    const std::uint64_t in_line = e % per_line;
    element_location at;
    at.line = ranges_[r].first_line + e / per_line;
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
