// bam/emu/gpu/handover_pool.hpp: API. The pool through which the GPU engine's warps hand queues
// over (docs/gpu-engine.md, "Queue handover"): a ring of queue numbers that any number of putters
// and takers share. Host and device, so that its host stress test (tests/emu/handover_pool_test)
// runs the code the engine runs.
#pragma once
#include <cstdint>
#include <cuda/atomic>
#if !defined(__CUDA_ARCH__)
#include <thread>
#endif

#include "bam/detail/macros.hpp"

namespace bam::emu::gpu {

/// The ring, trivially copyable (a kernel parameter). `slots` entries, a power of two at least the
/// number of queues that can be in the pool at once (each queue is in it at most once): 0 is an
/// empty slot, else (the put's index, low 32 bits) << 32 | (queue + 1), so that a taker never
/// takes an earlier lap's entry whose taker has not cleared it yet. All of it starts zeroed.
struct handover_pool_ref {
  unsigned long long* ring = nullptr;
  std::uint32_t slots = 0;
  std::uint32_t* head = nullptr;  ///< entries taken
  std::uint32_t* tail = nullptr;  ///< entries put

  /// Puts queue `q`. Release: what the caller wrote before (the queue's state) is seen by the
  /// thread that takes it.
  BAM_HD void put(std::uint32_t q) const {
    const std::uint32_t at = ref32(*tail).fetch_add(1, cuda::memory_order_relaxed);
    ref64 slot(ring[at & (slots - 1)]);
    const unsigned long long entry = (static_cast<unsigned long long>(at) << 32) | (q + 1);
    // The slot's earlier entry (at - slots) was taken, but its taker may not have cleared it yet.
    for (unsigned long long empty = 0; !slot.compare_exchange_weak(
             empty, entry, cuda::memory_order_release, cuda::memory_order_relaxed);
         empty = 0)
      pause();
  }

  /// The oldest entry's queue and index (*at), or ~0u: none (empty, or its put is not done).
  /// Acquire: the queue's state as its putter wrote it. The entry stays until take(*at).
  BAM_HD std::uint32_t oldest(std::uint32_t* at) const {
    const std::uint32_t h = ref32(*head).load(cuda::memory_order_relaxed);
    if (h == ref32(*tail).load(cuda::memory_order_relaxed)) return ~0u;
    const unsigned long long v = ref64(ring[h & (slots - 1)]).load(cuda::memory_order_acquire);
    if (v == 0 || static_cast<std::uint32_t>(v >> 32) != h) return ~0u;
    *at = h;
    return static_cast<std::uint32_t>(v) - 1;
  }

  /// Takes the entry at index `at` (from oldest()); false: another taker was first.
  BAM_HD bool take(std::uint32_t at) const {
    std::uint32_t expected = at;
    if (!ref32(*head).compare_exchange_strong(expected, at + 1, cuda::memory_order_relaxed))
      return false;
    ref64(ring[at & (slots - 1)]).store(0, cuda::memory_order_relaxed);
    return true;
  }

  /// Entries in the pool (a snapshot; may be momentarily off while others put and take).
  BAM_HD std::uint32_t size() const {
    const std::uint32_t t = ref32(*tail).load(cuda::memory_order_relaxed);
    const std::uint32_t h = ref32(*head).load(cuda::memory_order_relaxed);
    return t - h < 0x80000000u ? t - h : 0;
  }

 private:
  using ref32 = cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>;
  using ref64 = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;
  BAM_HD static void pause() {
#if BAM_DEVICE_CODE
    __nanosleep(32);
#else
    std::this_thread::yield();
#endif
  }
};

}  // namespace bam::emu::gpu
