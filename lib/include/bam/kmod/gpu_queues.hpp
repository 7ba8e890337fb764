// bam/kmod/gpu_queues.hpp: API (CUDA builds only). The GPU owner of a real controller's I/O
// queues: rings and bookkeeping in GPU memory, doorbells mapped for the GPU, handed to kernels
// as a queue set (queue_set_ref<mmio_doorbell>, one SSD) that the cache's GPU storage and
// block_io take like any other. UNTESTED ON HARDWARE: built, never run (kmod/README.md).
#pragma once
#include <cstdint>
#include <vector>

#include "bam/detail/macros.hpp"
#include "bam/driver/io_queue_pair.hpp"
#include "bam/kmod/kmod_controller.hpp"
#include "bam/kmod/kmod_gpu.hpp"
#include "bam/queue/ordering_read.hpp"
#include "bam/queue/queue_pair_ref.hpp"
#include "bam/queue/queue_set_ref.hpp"

namespace bam {

/// A queue of a real controller as GPU threads drive it: the doorbells are MMIO registers
/// (fence + volatile store; completions polled at system scope, since the controller writes
/// them over PCIe); the bookkeeping words are touched by this GPU's threads only (device scope).
using kmod_gpu_queue = queue_pair_ref<mmio_doorbell, cuda::thread_scope_device>;
using kmod_gpu_queue_set = queue_set_ref<mmio_doorbell, cuda::thread_scope_device>;
using kmod_gpu_ordering = ordering_read_ref<mmio_doorbell, cuda::thread_scope_device>;

/// The queue set with the §4.4 ordering read after every read it completes: what the cache's GPU
/// storage needs over a real controller, whose PCIe writes of a line may reach GPU memory after
/// the completion (queue_storage_ref goes through read_mark and read_ordered,
/// bam/queue/read_ordering.hpp). Trivially copyable.
struct kmod_gpu_ordered_queue_set : kmod_gpu_queue_set {
  kmod_gpu_ordering ordering{};
  BAM_HD std::uint64_t ordering_mark(std::uint32_t) const { return ordering.mark(); }
  BAM_HD bool after_read(std::uint32_t, std::uint64_t covered) const {
    return ordering.after_completion(covered);
  }
};

struct kmod_gpu_queue_options {
  std::uint32_t pairs = 1;             ///< queue pairs for the application
  std::uint32_t entries = 1024;        ///< SQ and CQ entries (a ring must be bus-contiguous: at
                                       ///< most 64 KiB, i.e. 1024 SQ entries, is one GPU page)
  bool ordering_read = true;           ///< storage.nvme_ordering_read (nvme_ordering_read_enabled)
  std::uint32_t ordering_entries = 8;  ///< entries of the ordering read's own pair (if granted)
  /// The ordering read's timeout, ns: the run's command timeout (command_timeout_ns, i.e.
  /// queues.timeout_ms resolved). Required (> 0) with ordering_read.
  std::uint64_t ordering_timeout_ns = 0;
};

/// Creates `pairs` I/O queue pairs on `ctrl` whose SQ/CQ rings are GPU memory mapped for the
/// controller (kmod_gpu_allocator over MAP_GPU), and lays out their bookkeeping in GPU memory.
/// With ordering_read, one more pair (when the controller grants it; else queue 0) carries the
/// coalesced extra reads, into a scratch LBA buffer of GPU memory; the ordering state is per
/// controller (the extra read goes to the controller that wrote the data). One per controller
/// (BAR0 can be registered with CUDA once). `ctrl` must outlive it; no kernel may use the
/// queues once it is destroyed (the queues are deleted on the controller, then the memory
/// freed). Throws std::runtime_error on CUDA, module or controller errors.
class kmod_gpu_queues {
 public:
  kmod_gpu_queues(kmod_controller& ctrl, const kmod_gpu_queue_options& opts);
  ~kmod_gpu_queues();
  kmod_gpu_queues(const kmod_gpu_queues&) = delete;
  kmod_gpu_queues& operator=(const kmod_gpu_queues&) = delete;

  /// The application pairs as a queue set of one SSD (namespace 1 of the controller).
  kmod_gpu_queue_set ref() const { return set_; }
  /// The §4.4 ordering read: take mark() before submitting a read, and call
  /// after_completion(mark) on it after the read completed and before using its data (the read
  /// covers the ordering of those completed before the mark). Disabled (does nothing) when the
  /// option is off.
  kmod_gpu_ordering ordering() const { return ordering_; }
  /// ref() with ordering(): the queue set a cache over this controller takes.
  kmod_gpu_ordered_queue_set ordered_ref() const { return {set_, ordering_}; }
  /// GPU memory mapped for this controller, for data buffers (64 KiB pages, bus address each).
  dma_allocator& gpu_allocator() { return rings_; }
  /// The extra reads issued so far and how many failed (copied from GPU memory; call with no
  /// kernel running). Zero when the ordering read is off.
  std::uint64_t ordering_reads() const { return ordering_snapshot().reads; }
  std::uint64_t ordering_errors() const { return ordering_snapshot().errors; }

 private:
  ordering_state ordering_snapshot() const;

  kmod_gpu_bar bar_;
  kmod_gpu_allocator rings_;
  dma_buffer scratch_;
  std::vector<io_queue_pair> pairs_;  ///< application pairs, then the ordering pair if its own
  void* state_block_ = nullptr;       ///< cudaMalloc: bookkeeping, pointers, ordering state
  kmod_gpu_queue_set set_{};
  kmod_gpu_ordering ordering_{};
  ordering_state* ordering_state_ = nullptr;  ///< in state_block_; nullptr: ordering read off
};

}  // namespace bam
