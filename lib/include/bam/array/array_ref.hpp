// bam/array/array_ref.hpp: API. A reference-reuse handle over a bam::array (BaM dissertation
// §7.2.2): keeps the line of its last access pinned, so consecutive accesses to that line cost
// no cache operation; it releases the line when an access moves to another line, on reset()
// and on destruction. One per thread; hit/miss statistics count one access per line change.
// Each live handle pins a slot: more live handles than slots can block eviction for good.
// Not a device-side ref in the owner/ref sense (it is a per-thread handle with a destructor, not
// trivially copyable, never passed to a kernel): the name is the BaM dissertation's.
#pragma once
#include <cstddef>
#include <cstdint>

#include "bam/array/array.hpp"
#include "bam/detail/macros.hpp"

namespace bam {

template <class T, class CacheRef>
class array_ref {
 public:
  BAM_HD explicit array_ref(const array<T, CacheRef>& a) : a_(&a) {}
  BAM_HD ~array_ref() { reset(); }
  array_ref(const array_ref&) = delete;
  array_ref& operator=(const array_ref&) = delete;

  // Accesses as bam::array's, with its error behaviour: the try_ ones return false when the
  // line could not be read, the others count it and return T{} / do nothing, or trap
  // (cache_error_mode).
  BAM_HD BAM_FORCEINLINE T operator[](std::uint64_t i) { return read(i); }
  BAM_HD BAM_FORCEINLINE T read(std::uint64_t i) {
    T v{};
    if (!try_read(i, v)) a_->cache().fail_access();
    return v;
  }
  BAM_HD BAM_FORCEINLINE bool try_read(std::uint64_t i, T& out) {
    const T* p = at(i, false);
    if (p == nullptr) return false;
    out = load_element(p);
    return true;
  }
  BAM_HD BAM_FORCEINLINE void write(std::uint64_t i, const T& v) {
    if (!try_write(i, v)) a_->cache().fail_access();
  }
  BAM_HD BAM_FORCEINLINE bool try_write(std::uint64_t i, const T& v) {
    T* p = at(i, true);
    if (p == nullptr) return false;
    store_element(p, v);
    return true;
  }
  BAM_HD BAM_FORCEINLINE T atomic_add(std::uint64_t i, const T& v) {
    T* p = at(i, true);
    if (p != nullptr) return device_atomic_ref<T>(*p).fetch_add(v, relaxed);
    a_->cache().fail_access();
    return T{};
  }

  /// Releases the held line (marking it dirty if this handle wrote to it).
  BAM_HD BAM_FORCEINLINE void reset() {
    if (base_ == nullptr) return;
    coalesced_release(a_->cache(), line_, dirty_);
    base_ = nullptr;
    dirty_ = false;
  }
  BAM_HD bool holds_line() const { return base_ != nullptr; }
  BAM_HD std::uint64_t line() const { return line_; }

 private:
  BAM_HD BAM_FORCEINLINE T* at(std::uint64_t i, bool write) {
    if (base_ == nullptr || i < first_ || i >= end_) {
      reset();
      const element_location loc = a_->locate(i);
      base_ = coalesced_acquire(a_->cache(), loc.line);
      if (base_ == nullptr) return nullptr;
      line_ = loc.line;
      first_ = loc.line_first;
      end_ = loc.line_end;
    }
    dirty_ = dirty_ || write;
    return reinterpret_cast<T*>(base_) + (i - first_);
  }

  const array<T, CacheRef>* a_;
  std::byte* base_ = nullptr;
  std::uint64_t line_ = 0, first_ = 0, end_ = 0;
  bool dirty_ = false;
};

}  // namespace bam
