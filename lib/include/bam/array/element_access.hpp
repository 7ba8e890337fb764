// bam/array/element_access.hpp: API. How bam::array and bam::array_ref load and store one
// element in its cache slot. Word-sized arithmetic elements (4 or 8 bytes) are stored with
// relaxed device-scope atomics, so threads that write one element at once are well defined (one
// of the values wins); on the host they are also loaded that way, so a read racing with a write
// is well defined too and ThreadSanitizer checks the cache's own synchronisation, not the
// application's. GPU loads stay plain: an aligned word load is single-copy atomic there, and a
// relaxed atomic load would bypass the L1 cache that hot-cache reads live on.
#pragma once
#include <type_traits>

#include "bam/detail/atomic.hpp"
#include "bam/detail/macros.hpp"

namespace bam {

template <class T>
inline constexpr bool atomic_element = std::is_arithmetic_v<T> &&
                                       (sizeof(T) == 4 || sizeof(T) == 8);

template <class T>
BAM_HD T load_element(const T* p) {
#if !BAM_DEVICE_CODE
  if constexpr (atomic_element<T>) {
    return device_atomic_ref<T>(*const_cast<T*>(p)).load(relaxed);
  }
#endif
  return *p;
}

template <class T>
BAM_HD void store_element(T* p, const T& v) {
  if constexpr (atomic_element<T>) {
    device_atomic_ref<T>(*p).store(v, relaxed);
  } else {
    *p = v;
  }
}

}  // namespace bam
