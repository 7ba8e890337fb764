// bam/cache/gpu_storage.hpp: API. The cache's storage policy for GPU threads over any queue set
// (bam/queue/queue_set_ref.hpp): slots in GPU memory the SSDs reach by DMA (a dma_allocator:
// emu::gpu::emulated_drives::dma_memory(), or kmod_gpu_queues::gpu_allocator() for a real
// controller), their PRP lists, the PRP table and the metadata in GPU memory. Construct the cache
// (and call cache::preload()) while no persistent kernel runs (e.g. before
// emu::gpu::emulated_drives::start()): construction uses cudaMalloc.
#pragma once
#include <cstddef>
#include <cstdint>

#include "bam/cache/cache_config.hpp"
#include "bam/cache/cache_stats.hpp"
#include "bam/cache/line_map.hpp"
#include "bam/cache/queue_storage.hpp"
#include "bam/dma.hpp"
#if defined(__CUDACC__)
#include "bam/detail/cuda.hpp"
#endif

namespace bam {

#if defined(__CUDACC__)
namespace detail {
template <class CacheRef>
__global__ void cache_flush_slots_kernel(CacheRef c, std::uint64_t first, std::uint64_t last,
                                         unsigned* errors) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t s = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; s < c.slots();
       s += stride) {
    if (!c.flush_slot(s, first, last)) atomicAdd(errors, 1u);
  }
}
/// After cache_flush_slots_kernel, one block of 32 threads (cache_max_ssds): a Flush to every
/// SSD when the cache wrote a line since the last flush, and (thread 0) whether an eviction's
/// write-back failed since then.
template <class CacheRef>
__global__ void cache_flush_ssds_kernel(CacheRef c, unsigned* errors) {
  __shared__ bool written;
  const std::uint32_t d = threadIdx.x;
  if (d == 0) written = c.take_unflushed_writes();
  __syncthreads();
  if (written && d < c.storage().ssds() && !c.flush_ssd(d)) {
    c.note_unflushed_writes();
    atomicAdd(errors, 1u);
  }
  if (d == 0 && c.take_write_back_failure()) atomicAdd(errors, 1u);
}
}  // namespace detail
#endif

/// What a GPU cache storage owns whatever its queues (lib/src/cache/gpu_storage.cu).
class gpu_slot_storage {
 public:
  /// Allocates the slots and their PRP lists from `slot_memory`, the PRP table (device memory)
  /// and a non-blocking stream for the cache's own kernels and copies. Preconditions
  /// (std::logic_error): a line size the schema allows, 1 to cache_max_ssds SSDs.
  /// std::invalid_argument for a slot count past 2^32, std::runtime_error on CUDA errors.
  gpu_slot_storage(const cache_config& cfg, std::uint32_t ssds, std::uint32_t lba_shift,
                   std::uint64_t lbas, dma_allocator& slot_memory);
  ~gpu_slot_storage();
  gpu_slot_storage(const gpu_slot_storage&) = delete;
  gpu_slot_storage& operator=(const gpu_slot_storage&) = delete;

  std::uint64_t line_capacity() const { return capacity_; }
  std::uint32_t ssds() const { return map_.ssds; }
  std::size_t slot_bytes() const { return slots_.size(); }
  std::size_t prp_bytes() const { return prp_bytes_; }
  /// PRP tables built: 1 (every SSD reaches the slots at the same bus addresses) or one per SSD.
  std::uint32_t prp_tables() const { return tables_; }
  /// The cache's stream (cudaStream_t, non-blocking).
  void* stream() const { return stream_; }

  // ---- memory of the cache's metadata (GPU memory) --------------------------------------
  void* allocate_zeroed(std::size_t bytes) const;
  void deallocate(void* p) const noexcept;
  /// Copies the counters to the host on the cache's stream (does not wait for other work).
  void read_counters(cache_counters& out, const cache_counters* in) const;
  void zero_counters(cache_counters* c) const;

#if defined(__CUDACC__)
  /// Writes back the dirty lines of [first_line, last_line) with one GPU thread per slot, then
  /// sends a Flush to every SSD when the cache wrote a line since the last flush; waits for both
  /// kernels (on the cache's stream). True when every write and flush succeeded and no eviction's
  /// write-back failed since the last flush.
  template <class CacheRef>
  bool flush(const CacheRef& c, std::uint64_t first_line, std::uint64_t last_line) const {
    auto s = static_cast<cudaStream_t>(stream_);
    cuda_check(cudaMemsetAsync(errors_, 0, sizeof(unsigned), s), "gpu cache: flush");
    std::uint64_t blocks = (c.slots() + 255) / 256;
    if (blocks > 1024) blocks = 1024;
    detail::cache_flush_slots_kernel<<<static_cast<unsigned>(blocks), 256, 0, s>>>(
        c, first_line, last_line, errors_);
    cuda_check(cudaGetLastError(), "gpu cache: flush slots kernel");
    static_assert(cache_max_ssds <= 32, "cache_flush_ssds_kernel: one SSD per thread of one warp");
    detail::cache_flush_ssds_kernel<<<1, 32, 0, s>>>(c, errors_);
    cuda_check(cudaGetLastError(), "gpu cache: flush ssds kernel");
    unsigned errors = 0;
    cuda_check(cudaMemcpyAsync(&errors, errors_, sizeof errors, cudaMemcpyDeviceToHost, s),
               "gpu cache: flush");
    cuda_check(cudaStreamSynchronize(s), "gpu cache: flush");
    return errors == 0;
  }
  /// Loads the flush kernels (lazy module loading would otherwise wait for the engine).
  template <class CacheRef>
  static void preload() {
    cuda_check(preload_kernel(detail::cache_flush_slots_kernel<CacheRef>), "gpu cache: preload");
    cuda_check(preload_kernel(detail::cache_flush_ssds_kernel<CacheRef>), "gpu cache: preload");
  }
#endif

 protected:
  /// Fills the queue-independent fields of a queue_storage_ref's params.
  template <class Params>
  void fill(Params& p) const {
    p.map = map_;
    p.slots = slots_.as<std::byte>();
    p.line_bytes = cfg_.line_bytes;
    p.prps = prps_;
    p.prps_per_ssd = tables_ == 1 ? 0 : cfg_.slots;
    p.timeout_ns = cfg_.io_timeout_ns;
  }

 private:
  cache_config cfg_;
  line_map map_{};
  std::uint64_t capacity_ = 0;
  dma_buffer slots_, lists_;
  nvme::prp_pair* prps_ = nullptr;  ///< device memory: [table * slots + slot]
  std::uint32_t tables_ = 1;
  unsigned* errors_ = nullptr;
  void* stream_ = nullptr;
  std::size_t prp_bytes_ = 0;
};

/// The GPU storage policy over the queue set `QueueSet` (a queue_set_ref).
template <class QueueSet>
class gpu_cache_storage : public gpu_slot_storage {
 public:
  using ref_type = queue_storage_ref<QueueSet>;

  /// `slot_memory`: GPU memory every SSD of `queues` reaches (it must outlive the storage).
  gpu_cache_storage(const cache_config& cfg, const QueueSet& queues, dma_allocator& slot_memory)
      : gpu_slot_storage(cfg, queues.ssds(), queues.lba_shift(), queues.lbas(), slot_memory),
        queues_(queues) {}

  ref_type ref() const {
    typename ref_type::params p;
    p.queues = queues_;
    fill(p);
    return ref_type(p);
  }

 private:
  QueueSet queues_;
};

}  // namespace bam
