// tests/common/memory_storage.cuh: a cache storage policy for GPU tests that must run under
// compute-sanitizer (which serialises kernels, so no engine kernel may run beside the
// application's): read_line / write_line copy the line from a "media" array in GPU memory with
// the calling thread, no NVMe. A line's next fail_left[line] reads fail (Unrecovered Read Error).
// Used by the cache's and the graph applications' sanitizer cases.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "bam/cache/cache.hpp"
#include "bam/cache/cache_config.hpp"
#include "bam/cache/cache_stats.hpp"
#include "bam/cache/gpu_storage.hpp"
#include "bam/detail/atomic.hpp"
#include "bam/nvme/spec.hpp"

namespace bam::test {

/// Storage policy over a "media" array in GPU memory: read_line / write_line copy the line
/// with the calling thread; no NVMe and no engine kernel. A line's next fail_left[line] reads
/// fail (Unrecovered Read Error).
class memory_storage_ref {
 public:
  memory_storage_ref() = default;
  memory_storage_ref(std::uint64_t* media, std::byte* slots, std::uint32_t line_bytes,
                     std::uint32_t* fail_left)
      : media_(media), slots_(slots), line_bytes_(line_bytes), fail_left_(fail_left) {}
  __host__ __device__ std::uint32_t ssds() const { return 1; }
  __host__ __device__ std::byte* slot_data(std::uint32_t slot) const {
    return slots_ + std::size_t{slot} * line_bytes_;
  }
  __host__ __device__ bool read_line(std::uint64_t line, std::uint32_t slot, bam::cache_counters& c,
                                     std::uint64_t&) const {
    bam::device_atomic_ref<std::uint32_t> left(fail_left_[line]);
    for (std::uint32_t f = left.load(bam::relaxed); f != 0;) {
      if (left.compare_exchange_weak(f, f - 1, bam::relaxed, bam::relaxed)) {
        c.add_error(bam::nvme::sc::unrecovered_read_error);
        return false;
      }
    }
    copy(reinterpret_cast<std::uint64_t*>(slot_data(slot)), media_ + line * words());
    c.add(c.reads, 1);
    c.add(c.bytes_read[0], line_bytes_);
    return true;
  }
  __host__ __device__ bool write_line(std::uint64_t line, std::uint32_t slot,
                                      bam::cache_counters& c) const {
    copy(media_ + line * words(), reinterpret_cast<const std::uint64_t*>(slot_data(slot)));
    c.add(c.writes, 1);
    c.add(c.bytes_written[0], line_bytes_);
    return true;
  }
  __host__ __device__ bool flush_ssd(std::uint32_t, bam::cache_counters&) const { return true; }
  __host__ __device__ bool io_live(std::uint64_t) const { return false; }
  __host__ __device__ void reap(std::uint64_t, bam::cache_counters&) const {}

 private:
  __host__ __device__ std::uint64_t words() const { return line_bytes_ / 8; }
  __host__ __device__ void copy(std::uint64_t* dst, const std::uint64_t* src) const {
    for (std::uint64_t w = 0; w < words(); ++w)
      dst[w] = src[w];
  }
  std::uint64_t* media_ = nullptr;
  std::byte* slots_ = nullptr;
  std::uint32_t line_bytes_ = 0;
  std::uint32_t* fail_left_ = nullptr;  ///< [lines]
};

class memory_storage {
 public:
  using ref_type = memory_storage_ref;
  memory_storage(const bam::cache_config& cfg, std::uint64_t lines) : cfg_(cfg), lines_(lines) {
    media_ = static_cast<std::uint64_t*>(allocate_zeroed(lines * cfg.line_bytes));
    slots_ = static_cast<std::byte*>(allocate_zeroed(cfg.slots * cfg.line_bytes));
    fail_left_ = static_cast<std::uint32_t*>(allocate_zeroed(lines * sizeof(std::uint32_t)));
  }
  ~memory_storage() {
    cudaFree(media_);
    cudaFree(slots_);
    cudaFree(fail_left_);
  }
  ref_type ref() const { return ref_type(media_, slots_, cfg_.line_bytes, fail_left_); }
  /// The next `n` reads of `line` fail.
  void fail_reads(std::uint64_t line, std::uint32_t n) {
    if (cudaMemcpy(fail_left_ + line, &n, sizeof n, cudaMemcpyHostToDevice) != cudaSuccess)
      throw std::runtime_error("memory_storage: cudaMemcpy");
  }
  std::uint64_t line_capacity() const { return lines_; }
  std::uint32_t ssds() const { return 1; }
  std::size_t slot_bytes() const { return cfg_.slots * cfg_.line_bytes; }
  std::size_t prp_bytes() const { return 0; }
  std::uint64_t* media() const { return media_; }
  void* allocate_zeroed(std::size_t bytes) const {
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess || cudaMemset(p, 0, bytes) != cudaSuccess)
      throw std::runtime_error("memory_storage: cudaMalloc");
    return p;
  }
  void deallocate(void* p) const noexcept { cudaFree(p); }
  void read_counters(bam::cache_counters& out, const bam::cache_counters* in) const {
    cudaMemcpy(&out, in, sizeof out, cudaMemcpyDeviceToHost);
  }
  void zero_counters(bam::cache_counters* c) const { cudaMemset(c, 0, sizeof *c); }
  template <class CacheRef>
  bool flush(const CacheRef& c, std::uint64_t first, std::uint64_t last) const {
    unsigned* errors = nullptr;
    cudaMallocManaged(&errors, sizeof(unsigned));
    *errors = 0;
    bam::detail::cache_flush_slots_kernel<<<4, 256>>>(c, first, last, errors);
    bam::detail::cache_flush_ssds_kernel<<<1, 32>>>(c, errors);
    cudaDeviceSynchronize();
    const bool ok = *errors == 0;
    cudaFree(errors);
    return ok;
  }
  template <class CacheRef>
  static void preload() {}

 private:
  bam::cache_config cfg_;
  std::uint64_t lines_;
  std::uint64_t* media_ = nullptr;
  std::byte* slots_ = nullptr;
  std::uint32_t* fail_left_ = nullptr;
};

}  // namespace bam::test
