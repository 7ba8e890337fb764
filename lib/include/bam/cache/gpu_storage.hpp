// bam/cache/gpu_storage.hpp: API. The cache's storage policy for GPU threads: slots, their PRP
// lists and the metadata in GPU memory, lines moved through the device_doorbell queues of
// emu::gpu::emulated_drives. Construct the cache (and call cache::preload()) before
// emulated_drives::start(): construction uses cudaMalloc, which must not run beside the engine.
#pragma once
#include <cstddef>
#include <cstdint>
#if defined(__CUDACC__)
#include "bam/detail/cuda.hpp"
#endif

#include "bam/cache/cache_config.hpp"
#include "bam/cache/cache_stats.hpp"
#include "bam/cache/queue_storage.hpp"
#include "bam/emu/gpu/emulated_drives.hpp"

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
template <class CacheRef>
__global__ void cache_flush_ssds_kernel(CacheRef c, unsigned* errors) {
  const std::uint32_t d = blockIdx.x * blockDim.x + threadIdx.x;
  if (d < c.storage().ssds() && !c.flush_ssd(d)) atomicAdd(errors, 1u);
}
}  // namespace detail
#endif

class gpu_cache_storage {
 public:
  using ref_type = queue_storage_ref<device_doorbell>;

  /// Allocates the slots (GPU memory), their PRP lists and the PRP table, and a non-blocking
  /// stream for the cache's own kernels and copies. Throws std::invalid_argument for a bad
  /// line size and std::runtime_error on CUDA errors.
  gpu_cache_storage(const cache_config& cfg, const emu::gpu::drives_view& drives);
  ~gpu_cache_storage();
  gpu_cache_storage(const gpu_cache_storage&) = delete;
  gpu_cache_storage& operator=(const gpu_cache_storage&) = delete;

  ref_type ref() const;
  std::uint64_t line_capacity() const { return capacity_; }
  std::uint32_t ssds() const { return map_.ssds; }
  std::size_t slot_bytes() const { return slot_bytes_; }
  std::size_t prp_bytes() const { return prp_bytes_; }
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
  /// sends a Flush to every SSD; waits for both kernels (on the cache's stream).
  template <class CacheRef>
  bool flush(const CacheRef& c, std::uint64_t first_line, std::uint64_t last_line) const {
    auto s = static_cast<cudaStream_t>(stream_);
    cuda_check(cudaMemsetAsync(errors_, 0, sizeof(unsigned), s), "gpu cache: flush");
    std::uint64_t blocks = (c.slots() + 255) / 256;
    if (blocks > 1024) blocks = 1024;
    detail::cache_flush_slots_kernel<<<static_cast<unsigned>(blocks), 256, 0, s>>>(
        c, first_line, last_line, errors_);
    cuda_check(cudaGetLastError(), "gpu cache: flush slots kernel");
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
    cudaFuncAttributes a{};
    cuda_check(cudaFuncGetAttributes(&a, detail::cache_flush_slots_kernel<CacheRef>),
               "gpu cache: preload");
    cuda_check(cudaFuncGetAttributes(&a, detail::cache_flush_ssds_kernel<CacheRef>),
               "gpu cache: preload");
  }
#endif

 private:
  cache_config cfg_;
  emu::gpu::drives_view drives_{};
  line_map map_{};
  std::uint64_t capacity_ = 0;
  std::byte* slots_alloc_ = nullptr;  ///< cudaMalloc'd, slots_ is its first page boundary
  std::byte* slots_ = nullptr;
  std::byte* lists_alloc_ = nullptr;
  nvme::prp_pair* prps_ = nullptr;
  unsigned* errors_ = nullptr;
  void* stream_ = nullptr;
  std::size_t slot_bytes_ = 0, prp_bytes_ = 0;
};

}  // namespace bam
