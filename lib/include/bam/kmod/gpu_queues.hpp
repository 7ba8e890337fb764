// bam/kmod/gpu_queues.hpp: API (CUDA builds only). The GPU owner of a real controller's I/O
// queues: rings and bookkeeping in GPU memory, doorbells mapped for the GPU, handed to kernels
// as queue_pair_ref<mmio_doorbell>. UNTESTED ON HARDWARE: built, never run (kmod/README.md).
#pragma once
#include <cstdint>
#include <vector>

#include "bam/detail/macros.hpp"
#include "bam/driver/io_queue_pair.hpp"
#include "bam/kmod/kmod_controller.hpp"
#include "bam/kmod/kmod_gpu.hpp"
#include "bam/queue/ordering_read.hpp"
#include "bam/queue/queue_pair_ref.hpp"

namespace bam {

/// A queue of a real controller as GPU threads drive it: the doorbells are MMIO registers
/// (fence + volatile store; completions polled at system scope, since the controller writes
/// them over PCIe); the bookkeeping words are touched by this GPU's threads only (device scope).
using kmod_gpu_queue = queue_pair_ref<mmio_doorbell, cuda::thread_scope_device>;
using kmod_gpu_ordering = ordering_read_ref<mmio_doorbell, cuda::thread_scope_device>;

/// What a kernel needs; trivially copyable, pass by value.
struct kmod_gpu_queues_view {
  queue_pointers* queues = nullptr;  ///< [count], in GPU memory
  std::uint32_t count = 0;
  std::uint32_t lba_size = 512;
  std::uint64_t namespace_lbas = 0;
  queue_pointers* ordering_queue = nullptr;  ///< in GPU memory; nullptr: ordering read off
  ordering_state* ordering = nullptr;        ///< in GPU memory; nullptr: ordering read off
  std::uint64_t ordering_scratch_bus = 0;    ///< one LBA of GPU memory the extra read lands in

  BAM_HD kmod_gpu_queue queue(std::uint32_t i) const { return kmod_gpu_queue(queues[i]); }
  /// Call after_completion() on it after a read completed and before using its data.
  BAM_HD kmod_gpu_ordering ordering_read() const {
    if (ordering == nullptr) return kmod_gpu_ordering();
    return kmod_gpu_ordering(ordering, kmod_gpu_queue(*ordering_queue), ordering_scratch_bus);
  }
};

struct kmod_gpu_queue_options {
  std::uint32_t pairs = 1;             ///< queue pairs for the application
  std::uint32_t entries = 1024;        ///< SQ and CQ entries (a ring must be bus-contiguous: at
                                       ///< most 64 KiB, i.e. 1024 SQ entries, is one GPU page)
  bool ordering_read = true;           ///< storage.nvme_ordering_read (nvme_ordering_read_enabled)
  std::uint32_t ordering_entries = 8;  ///< entries of the ordering read's own pair (if granted)
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

  const kmod_gpu_queues_view& view() const { return view_; }
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
  kmod_gpu_queues_view view_{};
};

}  // namespace bam
