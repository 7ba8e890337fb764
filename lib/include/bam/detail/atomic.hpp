// bam/detail/atomic.hpp: the atomics every shared word of bamkit goes through.
// cuda::atomic_ref with an explicit scope, on host and device from one source; short aliases
// keep call sites readable. Scopes: `device` for words only GPU threads touch (or only host
// threads, in host mode), `system` for words a controller on the other side of PCIe or another
// agent reads (doorbells, completion entries).
#pragma once
#include <cuda/atomic>

#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <chrono>
#include <thread>
#endif

#include "bam/detail/macros.hpp"

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

/// Relaxed on the device, `host_order` on the host: for an access that needs no order of its own
/// on the device, because an explicit fence orders it or the protocol does (each call says
/// which). On the GPU every acquire or release access is a fence (200-300 ns each on an H200;
/// the queue protocol's per-slot ones held 1M threads on 128 queue pairs to 59 M IOPS where
/// they reach 101 M without them: docs/gpu-engine.md, "Fences"); the host keeps `host_order`,
/// which costs nothing on x86 and which ThreadSanitizer understands (it does not model fences).
BAM_HD constexpr memory_order device_relaxed(memory_order host_order) {
#if BAM_DEVICE_CODE
  (void)host_order;
  return relaxed;
#else
  return host_order;
#endif
}

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

/// Waiting in a spin loop. The host spins (about 10 µs), then yields the core (host-mode clients
/// and emulated-controller threads often outnumber the cores, and the thread that holds a lock or
/// must post a completion has to get one), and only after thousands of rounds sleeps for a
/// growing time (1 to 64 µs), so long waits do not burn a core. The device
/// sleeps a growing number of nanoseconds (doubling from 32 until it reaches a ceiling, 1 µs by
/// default), which frees issue slots for the warps that hold locks.
class backoff {
 public:
  /// The device's ceiling unless the constructor names one.
  static constexpr unsigned default_max_ns = 1024;

  backoff() = default;
  /// The device's sleep doubles from 32 ns until it reaches `max_ns` (its last sleep is the first
  /// power of two at or past it); the host ignores it.
  BAM_HD explicit backoff([[maybe_unused]] unsigned max_ns) {
#if BAM_DEVICE_CODE
    max_ = max_ns;
#endif
  }

  BAM_HD void pause() {
#if BAM_DEVICE_CODE
    __nanosleep(ns_);
    if (ns_ < max_) ns_ *= 2;
#else
    if (n_ < spin_rounds) {
      spin_pause();
    } else if (n_ < yield_rounds) {
      std::this_thread::yield();
    } else {
      const unsigned k = n_ - yield_rounds;
      std::this_thread::sleep_for(std::chrono::microseconds(1u << (k < 6 ? k : 6)));
    }
    ++n_;
#endif
  }

 private:
#if BAM_DEVICE_CODE
  unsigned max_ = default_max_ns;
  unsigned ns_ = 32;
#else
  static constexpr unsigned spin_rounds = 256;
  static constexpr unsigned yield_rounds = 4096;
  unsigned n_ = 0;
#endif
};

}  // namespace bam
