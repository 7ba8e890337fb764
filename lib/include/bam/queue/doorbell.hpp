// bam/queue/doorbell.hpp: how a queue writes a doorbell, as a policy of queue_pair_ref.
// memory_doorbell is for controllers that read their doorbells from memory (emulated ones);
// mmio_doorbell is for a real controller's BAR, mapped uncached (host) or through
// cudaHostRegister(IoMemory) (GPU); device_doorbell is for a controller on the same GPU.
#pragma once
#include <cstdint>

#include "bam/detail/atomic.hpp"
#include "bam/detail/macros.hpp"

namespace bam {

/// Doorbell in ordinary memory: a release store at system scope. Everything the ringing thread
/// wrote before (the submission entries it publishes) is visible to the engine that acquires it.
struct memory_doorbell {
  /// Scope at which completion entries are polled: the controller may be another agent.
  static constexpr cuda::thread_scope scope = cuda::thread_scope_system;
  BAM_HD static void ring(std::uint32_t* doorbell, std::uint32_t value) {
    system_atomic_ref<std::uint32_t>(*doorbell).store(value, release);
  }
  /// As ring, after the caller's own fence at scope `Fenced` (device code): ring itself here.
  template <cuda::thread_scope Fenced>
  BAM_HD static void ring_after_fence(std::uint32_t* doorbell, std::uint32_t value) {
    ring(doorbell, value);
  }
};

/// Doorbell register of a real controller. The submission entries written before must be
/// visible to the controller's DMA reads before it sees the new tail. On the GPU: a system-scope
/// fence, then one volatile 32-bit store to the register (mapped through cudaHostRegister with
/// the I/O-memory flag). On the host: one 32-bit release store, which is a plain store after all
/// earlier ones on x86-64 (and a store-release on Arm); ThreadSanitizer also understands it,
/// where it rejects a standalone fence.
struct mmio_doorbell {
  static constexpr cuda::thread_scope scope = cuda::thread_scope_system;
  BAM_HD static void ring(std::uint32_t* doorbell, std::uint32_t value) {
#if BAM_DEVICE_CODE
    __threadfence_system();
    *static_cast<volatile std::uint32_t*>(doorbell) = value;
#else
    system_atomic_ref<std::uint32_t>(*doorbell).store(value, release);
#endif
  }
  /// As ring (its system-scope fence stays: the caller's fence is at most device scope).
  template <cuda::thread_scope Fenced>
  BAM_HD static void ring_after_fence(std::uint32_t* doorbell, std::uint32_t value) {
    ring(doorbell, value);
  }
};

/// Doorbell in GPU memory of a controller that runs on the same GPU (the GPU-emulated drives):
/// a release store at device scope, and completion entries polled at device scope. Cheaper than
/// system scope by a system-wide fence per doorbell and per completion.
struct device_doorbell {
  static constexpr cuda::thread_scope scope = cuda::thread_scope_device;
  BAM_HD static void ring(std::uint32_t* doorbell, std::uint32_t value) {
    device_atomic_ref<std::uint32_t>(*doorbell).store(value, release);
  }
  /// As ring, after the caller's own fence at scope `Fenced` (device code, at least device
  /// scope) ordered everything the doorbell publishes: a relaxed store, which with that fence is
  /// a release (a release fence, then a store: the pattern the controller's acquire pairs with).
  /// A release store is a fence of its own on the GPU (200-300 ns). The host keeps the release
  /// store (free on x86; ThreadSanitizer does not model fences). It orders nothing after the
  /// fence: the caller orders successive rings by different threads (queue_pair_ref rings under
  /// a lock whose unlock is a release store).
  template <cuda::thread_scope Fenced>
  BAM_HD static void ring_after_fence(std::uint32_t* doorbell, std::uint32_t value) {
    static_assert(Fenced == cuda::thread_scope_device || Fenced == cuda::thread_scope_system,
                  "the controller is at device scope: a narrower fence does not reach it");
    device_atomic_ref<std::uint32_t>(*doorbell).store(value, device_relaxed(release));
  }
};

}  // namespace bam
