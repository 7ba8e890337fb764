// bam/queue/doorbell.hpp: how a queue writes a doorbell, as a policy of queue_pair_ref.
// memory_doorbell is for controllers that read their doorbells from memory (emulated ones);
// mmio_doorbell is for a real controller's BAR, mapped uncached (host) or through
// cudaHostRegister(IoMemory) (GPU).
#pragma once
#include <cstdint>

#include "bam/config.hpp"
#include "bam/detail/atomic.hpp"

namespace bam {

/// Doorbell in ordinary memory: a release store at system scope. Everything the ringing thread
/// wrote before (the submission entries it publishes) is visible to the engine that acquires it.
struct memory_doorbell {
  BAM_HD static void ring(std::uint32_t* doorbell, std::uint32_t value) {
    system_atomic_ref<std::uint32_t>(*doorbell).store(value, release);
  }
};

/// Doorbell register of a real controller: a system-scope fence, so that the submission entries
/// written to (GPU or host) memory are visible to the controller's DMA reads before it sees the
/// new tail, then one volatile 32-bit store to the register.
struct mmio_doorbell {
  BAM_HD static void ring(std::uint32_t* doorbell, std::uint32_t value) {
    cuda::atomic_thread_fence(release, cuda::thread_scope_system);
    *static_cast<volatile std::uint32_t*>(doorbell) = value;
  }
};

}  // namespace bam
