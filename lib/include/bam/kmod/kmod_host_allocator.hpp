// bam/kmod/kmod_host_allocator.hpp: API, a dma_allocator of pinned host memory for a real
// controller: page-aligned, zero-filled, mlock'd memory that the bamkit module DMA-maps
// (through the IOMMU when there is one); the region's bus_pages are what the controller uses.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>

#include "bam/dma.hpp"
#include "bam/kmod/kmod_device.hpp"

namespace bam {

/// Thread-safe. The device must outlive the allocator and every region it handed out.
/// With `huge_pages`, regions larger than 4 KiB are backed by 2 MiB hugetlb pages (sizes round
/// up to 2 MiB), so each 2 MiB of a region is contiguous on the bus: what queue rings need on
/// controllers that require physically contiguous queues (CAP.CQR) and have no IOMMU to make them
/// so. Needs pages reserved in /proc/sys/vm/nr_hugepages.
class kmod_host_allocator final : public dma_allocator {
 public:
  explicit kmod_host_allocator(const kmod_device& device, bool huge_pages = false)
      : device_(&device), huge_pages_(huge_pages) {}
  kmod_host_allocator(const kmod_host_allocator&) = delete;
  kmod_host_allocator& operator=(const kmod_host_allocator&) = delete;
  ~kmod_host_allocator() override;

  dma_region allocate(std::size_t bytes) override;
  void free(dma_region& region) noexcept override;
  std::uint32_t page_size_log2() const override { return 12; }
  /// Regions handed out and not yet freed.
  std::size_t live_regions() const;
  bool huge_pages() const { return huge_pages_; }

 private:
  const kmod_device* device_;
  bool huge_pages_;
  mutable std::mutex mutex_;
  struct entry {
    std::uint64_t handle;
    std::size_t size;
  };
  std::map<void*, entry> live_;  // vaddr -> module mapping
};

}  // namespace bam
