// bam/emu/gpu/identity_allocator.hpp: API (CUDA builds only). GPU memory whose bus address is
// its device address: what GPU-emulated drives read and write (their engine dereferences PRPs),
// as host_identity_allocator is for host-emulated controllers. Regions are cudaMalloc'd,
// zero-filled, 4 KiB pages; their vaddr is a device pointer (not for the CPU). Allocate and free
// only while no persistent kernel (the drives' engine) runs: cudaMalloc and cudaFree may wait
// for the whole device.
#pragma once
#include <mutex>
#include <unordered_map>

#include "bam/dma.hpp"

namespace bam::emu::gpu {

class device_identity_allocator final : public dma_allocator {
 public:
  dma_region allocate(std::size_t bytes) override;
  void free(dma_region& region) noexcept override;
  std::uint32_t page_size_log2() const override { return 12; }

 private:
  std::mutex mu_;
  std::unordered_map<void*, void*> raw_;  ///< page-aligned start handed out -> what cudaMalloc gave
};

}  // namespace bam::emu::gpu
