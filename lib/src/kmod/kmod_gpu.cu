// The GPU side of a bamkit.ko controller (bam/kmod/kmod_gpu.hpp): BAR0 registered as CUDA I/O
// memory, GPU memory mapped for the controller through MAP_GPU. Built, never run on hardware.
// (No fmt here: nvcc does not take fmt's consteval format strings.)
#include <cuda_runtime.h>
#include <algorithm>
#include <stdexcept>
#include <string>

#include "bam/detail/cuda.hpp"
#include "bam/kmod/kmod_gpu.hpp"
#include "bam/nvme/spec.hpp"

namespace bam {
namespace {

constexpr std::size_t gpu_page = std::size_t{1} << 16;

}  // namespace

kmod_gpu_bar::kmod_gpu_bar(const kmod_device& dev) : host_base_(dev.bar().base()) {
  cuda_check(cudaHostRegister(host_base_, dev.bar().size(),
                              cudaHostRegisterIoMemory | cudaHostRegisterMapped),
             "cudaHostRegister(BAR0, IoMemory)");
  const cudaError_t e = cudaHostGetDevicePointer(&device_base_, host_base_, 0);
  if (e != cudaSuccess) {
    cudaHostUnregister(host_base_);
    cuda_check(e, "cudaHostGetDevicePointer(BAR0)");
  }
}

kmod_gpu_bar::~kmod_gpu_bar() {
  cudaHostUnregister(host_base_);
}

std::uint32_t* kmod_gpu_bar::sq_doorbell(std::uint16_t qid, std::uint32_t dstrd) const {
  return reinterpret_cast<std::uint32_t*>(static_cast<std::uint8_t*>(device_base_) +
                                          nvme::reg::sq_tail_doorbell(qid, dstrd));
}

std::uint32_t* kmod_gpu_bar::cq_doorbell(std::uint16_t qid, std::uint32_t dstrd) const {
  return reinterpret_cast<std::uint32_t*>(static_cast<std::uint8_t*>(device_base_) +
                                          nvme::reg::cq_head_doorbell(qid, dstrd));
}

kmod_gpu_allocator::~kmod_gpu_allocator() {
  for (block& b : blocks_)
    release(b);
}

void kmod_gpu_allocator::release(const block& b) noexcept {
  bool deferred = false;
  try {
    deferred = dev_->unmap(b.handle);
  } catch (...) {
  }
  // The controller was running: the module keeps the mapping until it stops, and GPU memory
  // freed under a mapping makes it cut the controller's bus mastering. Leave it allocated:
  // it goes with the CUDA context.
  if (!deferred) cudaFree(b.raw);
}

dma_region kmod_gpu_allocator::allocate(std::size_t bytes) {
  const std::size_t size = std::max<std::size_t>((bytes + gpu_page - 1) / gpu_page, 1) * gpu_page;
  block b;
  // nv-p2p pins whole 64 KiB GPU pages: over-allocate and align.
  cuda_check(cudaMalloc(&b.raw, size + gpu_page), "cudaMalloc(queue memory)");
  const auto raw = reinterpret_cast<std::uintptr_t>(b.raw);
  b.aligned = reinterpret_cast<void*>((raw + gpu_page - 1) / gpu_page * gpu_page);
  dma_region r;
  try {
    cuda_check(cudaMemset(b.aligned, 0, size), "cudaMemset(queue memory)");
    cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    kmod_mapping m = dev_->map_gpu(reinterpret_cast<std::uint64_t>(b.aligned), size);
    b.handle = m.handle;
    r.vaddr = b.aligned;
    r.size = size;
    r.page_size_log2 = m.page_shift;
    r.bus_pages = std::move(m.bus_pages);
  } catch (...) {
    cudaFree(b.raw);
    throw;
  }
  std::lock_guard<std::mutex> lock(mu_);
  blocks_.push_back(b);
  return r;
}

void kmod_gpu_allocator::free(dma_region& region) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = std::find_if(blocks_.begin(), blocks_.end(),
                               [&](const block& b) { return b.aligned == region.vaddr; });
  if (it == blocks_.end()) return;
  release(*it);
  blocks_.erase(it);
  region = {};
}

}  // namespace bam
