// bam/queue/queue_set_ref.hpp: API. The I/O queues of a set of SSDs as the threads that use them
// see it: `queues_per_ssd` queue pairs of each of `ssds` SSDs, one LBA size, and the smallest
// namespace. Trivially copyable: pass it by value into kernels. Every owner of queues hands one
// out: gpu-emulated drives (device_doorbell), a real controller's queues in GPU memory
// (kmod_gpu_queues, mmio_doorbell), host controllers' queues (memory_doorbell). The cache's
// storage and block I/O take it, so they run over any of them. All SSDs use namespace 1.
#pragma once
#include <cstdint>
#include <type_traits>
#if !defined(__CUDA_ARCH__)
#include <atomic>
#endif

#include "bam/detail/macros.hpp"
#include "bam/detail/sm_id.hpp"
#include "bam/queue/queue_pair_ref.hpp"
#include "bam/queue/queue_state.hpp"

namespace bam {

namespace detail {
#if !defined(__CUDA_ARCH__)
/// A small dense index per host thread (0, 1, 2, ... in order of first use).
inline std::uint32_t host_thread_index() {
  static std::atomic<std::uint32_t> next{0};
  thread_local const std::uint32_t index = next.fetch_add(1, std::memory_order_relaxed);
  return index;
}
#endif
}  // namespace detail

/// What a queue set is made of, whatever the doorbell policy: the same queues can be handed out
/// under two policies (GPU-emulated drives: emulated_drives::ref() and hardware_ref()).
struct queue_set_params {
  const queue_pointers* queues = nullptr;  ///< [ssd * queues_per_ssd + q], memory the users reach
  std::uint32_t ssds = 0;
  std::uint32_t queues_per_ssd = 0;
  std::uint32_t lba_shift = 9;  ///< log2 of the LBA size every SSD of the set uses
  std::uint64_t lbas = 0;       ///< LBAs of namespace 1 (the smallest of the set)
};

template <class Doorbell, cuda::thread_scope Scope = cuda::thread_scope_device>
class queue_set_ref {
 public:
  using doorbell_type = Doorbell;
  using queue_ref = queue_pair_ref<Doorbell, Scope>;
  using params = queue_set_params;

  queue_set_ref() = default;
  BAM_HD explicit queue_set_ref(const params& p) : p_(p) {
    static_assert(std::is_trivially_copyable_v<queue_set_ref>, "kernels take it by value");
  }

  BAM_HD std::uint32_t ssds() const { return p_.ssds; }
  BAM_HD std::uint32_t queues_per_ssd() const { return p_.queues_per_ssd; }
  BAM_HD std::uint32_t lba_shift() const { return p_.lba_shift; }
  BAM_HD std::uint32_t lba_bytes() const { return 1u << p_.lba_shift; }
  BAM_HD std::uint64_t lbas() const { return p_.lbas; }
  BAM_HD const params& parameters() const { return p_; }

  /// Queue `q` (< queues_per_ssd()) of SSD `ssd` (< ssds()).
  BAM_HD queue_ref queue(std::uint32_t ssd, std::uint32_t q) const {
    return queue_ref(p_.queues[std::size_t{ssd} * p_.queues_per_ssd + q]);
  }

  /// The queue of `ssd` the calling thread uses when it does not choose: on the GPU by SM and
  /// warp slot (a warp keeps its queue, warps spread over the queues), on the host one per
  /// thread (modulo the count).
  BAM_HD queue_ref my_queue(std::uint32_t ssd) const { return queue(ssd, my_queue_index()); }

  BAM_HD std::uint32_t my_queue_index() const {
#if BAM_DEVICE_CODE
    std::uint32_t warp = 0;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warp));
    return (bam::detail::sm_id() * 64 + warp) % p_.queues_per_ssd;
#else
    return detail::host_thread_index() % p_.queues_per_ssd;
#endif
  }

 private:
  params p_{};
};

}  // namespace bam
