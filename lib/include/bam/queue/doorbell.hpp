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
};

/// Doorbell in GPU memory of a controller that runs on the same GPU (the GPU-emulated drives):
/// a release store at device scope, and completion entries polled at device scope. Cheaper than
/// system scope by a system-wide fence per doorbell and per completion.
struct device_doorbell {
  static constexpr cuda::thread_scope scope = cuda::thread_scope_device;
  BAM_HD static void ring(std::uint32_t* doorbell, std::uint32_t value) {
    device_atomic_ref<std::uint32_t>(*doorbell).store(value, release);
  }
};

}  // namespace bam
