// bam/detail/atomic.hpp: the atomics every shared word of bamkit goes through.
// cuda::atomic_ref with an explicit scope, on host and device from one source; short aliases
// keep call sites readable. Scopes: `device` for words only GPU threads touch (or only host
// threads, in host mode), `system` for words a controller on the other side of PCIe or another
// agent reads (doorbells, completion entries).
#pragma once
#include <cuda/atomic>

#include <cstdint>

#include "bam/config.hpp"

namespace bam {

using memory_order = cuda::memory_order;
inline constexpr auto relaxed = cuda::memory_order_relaxed;
inline constexpr auto acquire = cuda::memory_order_acquire;
inline constexpr auto release = cuda::memory_order_release;
inline constexpr auto acq_rel = cuda::memory_order_acq_rel;

template <class T>
using device_atomic_ref = cuda::atomic_ref<T, cuda::thread_scope_device>;
template <class T>
using system_atomic_ref = cuda::atomic_ref<T, cuda::thread_scope_system>;

/// Spin-wait hint: lets the other hyperthread (host) or warp (device) run.
BAM_HD inline void spin_pause() {
#if BAM_DEVICE_CODE
  __nanosleep(32);
#elif defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace bam
