// bam/kmod/kmod_gpu.hpp: API (CUDA builds only), the GPU side of a controller bound to bamkit.ko:
// its BAR0 doorbells mapped into the GPU address space, and GPU memory DMA-mapped for it through
// the module's MAP_GPU (nv-p2p). UNTESTED ON HARDWARE: built, never run (see kmod/README.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "bam/dma.hpp"
#include "bam/kmod/kmod_device.hpp"

namespace bam {

/// BAR0 of `dev` registered with CUDA as I/O memory (cudaHostRegister with
/// cudaHostRegisterIoMemory | cudaHostRegisterMapped) so GPU threads can write its doorbells
/// (with mmio_doorbell). Unregisters on destruction; `dev` must outlive it.
class kmod_gpu_bar {
 public:
  explicit kmod_gpu_bar(const kmod_device& dev);
  ~kmod_gpu_bar();
  kmod_gpu_bar(const kmod_gpu_bar&) = delete;
  kmod_gpu_bar& operator=(const kmod_gpu_bar&) = delete;

  /// BAR0 as the GPU addresses it.
  void* device_base() const { return device_base_; }
  /// GPU pointers to SQ `qid`'s tail and CQ `qid`'s head doorbells (stride CAP.DSTRD).
  std::uint32_t* sq_doorbell(std::uint16_t qid, std::uint32_t dstrd) const;
  std::uint32_t* cq_doorbell(std::uint16_t qid, std::uint32_t dstrd) const;

 private:
  void* host_base_ = nullptr;
  void* device_base_ = nullptr;
};

/// dma_allocator of GPU memory for one controller: cudaMalloc'd, 64 KiB aligned, mapped with
/// kmod_device::map_gpu; regions have 64 KiB pages and vaddr is a device pointer (not
/// dereferenceable by the CPU). Zero-filled with cudaMemset. Needs a module built with
/// NVIDIA_SRC (otherwise allocate throws with EOPNOTSUPP; ENOPKG when the NVIDIA driver is not
/// loaded). Memory freed while the controller runs stays allocated until the CUDA context ends
/// (the module defers its unmapping; freeing it would cut the controller's bus mastering).
class kmod_gpu_allocator final : public dma_allocator {
 public:
  explicit kmod_gpu_allocator(const kmod_device& dev) : dev_(&dev) {}
  ~kmod_gpu_allocator() override;
  kmod_gpu_allocator(const kmod_gpu_allocator&) = delete;
  kmod_gpu_allocator& operator=(const kmod_gpu_allocator&) = delete;

  dma_region allocate(std::size_t bytes) override;
  void free(dma_region& region) noexcept override;
  std::uint32_t page_size_log2() const override { return 16; }

 private:
  struct block {
    void* raw = nullptr;      ///< what cudaMalloc returned
    void* aligned = nullptr;  ///< the 64 KiB aligned start handed out
    std::uint64_t handle = 0;
  };
  /// Unmaps `b`; frees its memory unless the module deferred the unmapping.
  void release(const block& b) noexcept;

  const kmod_device* dev_;
  std::mutex mu_;
  std::vector<block> blocks_;
};

}  // namespace bam
