// bam/kmod/kmod_host_allocator.hpp: API, a dma_allocator of pinned host memory for a real
// controller: page-aligned, zero-filled, mlock'd memory that the bamkit module DMA-maps
// (through the IOMMU when there is one); the region's bus_pages are what the controller uses.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "bam/dma.hpp"
#include "bam/kmod/kmod_device.hpp"

namespace bam {

/// Thread-safe. The devices must outlive the allocator and every region it handed out.
/// A freed region stays pinned and mapped, idle, until an allocation of the same size reuses it
/// (zero-filled again) or the allocator is destroyed: the module would keep memory unmapped
/// while the controller runs pinned anyway (it defers the release until the controller stops),
/// so freeing and allocating buffers while I/O runs costs no pinned memory.
/// With `huge_pages`, regions larger than 4 KiB are backed by 2 MiB hugetlb pages (sizes round
/// up to 2 MiB), so each 2 MiB of a region is contiguous on the bus: what queue rings need on
/// controllers that require physically contiguous queues (CAP.CQR) and have no IOMMU to make them
/// so. Needs pages reserved in /proc/sys/vm/nr_hugepages.
class kmod_host_allocator final : public dma_allocator {
 public:
  explicit kmod_host_allocator(const kmod_device& device, bool huge_pages = false)
      : devices_{&device}, huge_pages_(huge_pages) {}
  /// Maps every region for each of `devices` (one pin and mapping per controller): memory that
  /// several controllers DMA to, e.g. cache slots striped over SSDs. The region's bus_pages are
  /// device 0's; device_bus_address() gives each controller's (they differ behind an IOMMU).
  explicit kmod_host_allocator(std::vector<const kmod_device*> devices, bool huge_pages = false);
  kmod_host_allocator(const kmod_host_allocator&) = delete;
  kmod_host_allocator& operator=(const kmod_host_allocator&) = delete;
  ~kmod_host_allocator() override;

  dma_region allocate(std::size_t bytes) override;
  void free(dma_region& region) noexcept override;
  std::uint32_t page_size_log2() const override { return 12; }
  std::uint32_t devices() const override { return static_cast<std::uint32_t>(devices_.size()); }
  /// Throws std::out_of_range for a region or device this allocator does not know.
  std::uint64_t device_bus_address(const dma_region& region, std::size_t offset,
                                   std::uint32_t device) const override;
  /// Regions handed out and not yet freed.
  std::size_t live_regions() const;
  /// Freed regions kept mapped for reuse.
  std::size_t idle_regions() const;
  bool huge_pages() const { return huge_pages_; }

 private:
  void release(void* vaddr, std::size_t size, const std::vector<std::uint64_t>& handles) noexcept;
  /// An idle region of exactly `size` bytes, zero-filled and live again; none: vaddr null.
  dma_region reuse(std::size_t size);

  std::vector<const kmod_device*> devices_;
  bool huge_pages_;
  mutable std::mutex mutex_;
  struct entry {
    std::size_t size;
    std::uint32_t page_shift;                           ///< of every device's bus_pages
    std::vector<std::uint64_t> handles;                 ///< per device
    std::vector<std::vector<std::uint64_t>> bus_pages;  ///< per device
    bool idle = false;                                  ///< freed, kept for reuse
  };
  std::map<void*, entry> regions_;          // vaddr -> module mappings, live and idle
  std::multimap<std::size_t, void*> idle_;  // size -> vaddr of the idle regions
  std::size_t live_ = 0;
};

}  // namespace bam
