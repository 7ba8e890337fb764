// GPU memory with identity bus addresses (bam/emu/gpu/identity_allocator.hpp).
#include <cuda_runtime.h>

#include <cstdint>

#include "bam/detail/cuda.hpp"
#include "bam/emu/gpu/identity_allocator.hpp"

namespace bam::emu::gpu {
namespace {

constexpr std::size_t page = 4096;

}  // namespace

dma_region device_identity_allocator::allocate(std::size_t bytes) {
  const std::size_t size = (bytes + page - 1) / page * page;
  void* raw = nullptr;
  cuda_check(cudaMalloc(&raw, (size == 0 ? page : size) + page),
             "device_identity_allocator: cudaMalloc");
  const auto at = (reinterpret_cast<std::uintptr_t>(raw) + page - 1) / page * page;
  void* aligned = reinterpret_cast<void*>(at);
  const cudaError_t e = cudaMemset(aligned, 0, size);
  if (e != cudaSuccess) cudaFree(raw);
  cuda_check(e, "device_identity_allocator: cudaMemset");
  {
    std::lock_guard lock(mu_);
    raw_[aligned] = raw;
  }
  dma_region r;
  r.vaddr = aligned;
  r.size = size;
  r.page_size_log2 = page_size_log2();
  r.bus_pages.resize(size / page);
  for (std::size_t i = 0; i < r.bus_pages.size(); ++i)
    r.bus_pages[i] = at + i * page;
  return r;
}

void device_identity_allocator::free(dma_region& region) noexcept {
  if (region.vaddr != nullptr) {
    void* raw = nullptr;
    {
      std::lock_guard lock(mu_);
      const auto it = raw_.find(region.vaddr);
      if (it != raw_.end()) {
        raw = it->second;
        raw_.erase(it);
      }
    }
    cudaFree(raw);
  }
  region = {};
}

}  // namespace bam::emu::gpu
