// bam/dma.hpp: memory a controller can reach by DMA, and its bus addresses.
// A dma_region is a virtual range plus the bus address of each of its pages (as the kernel
// module returns them, or the identity map of an emulated controller). Allocators are the
// control-plane interface (virtual is fine here: never on an I/O path).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace bam {

/// A DMA-able memory range: what a controller sees of it is `bus_pages`.
struct dma_region {
  void* vaddr = nullptr;                 ///< where the host (or GPU) reaches it
  std::size_t size = 0;                  ///< bytes
  std::uint32_t page_size_log2 = 12;     ///< granularity of `bus_pages`
  std::vector<std::uint64_t> bus_pages;  ///< bus address of each page, in order

  /// Bus address of byte `offset` of the region.
  std::uint64_t bus_address(std::size_t offset) const {
    const std::size_t page = offset >> page_size_log2;
    return bus_pages.at(page) + (offset & ((std::size_t{1} << page_size_log2) - 1));
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(vaddr);
  }
};

/// Hands out DMA-able memory. Implementations: host memory with identity bus addresses (for
/// emulated controllers), pinned host memory mapped through the kernel module, GPU memory.
class dma_allocator {
 public:
  virtual ~dma_allocator() = default;
  /// Allocates `bytes` (rounded up to whole pages), zero-filled, aligned to a page.
  virtual dma_region allocate(std::size_t bytes) = 0;
  virtual void free(dma_region& region) noexcept = 0;
  /// Page size of the regions this allocator returns, log2 of bytes.
  virtual std::uint32_t page_size_log2() const = 0;
  /// Controllers the regions are DMA-mapped for: 1, unless the allocator maps every region for
  /// several controllers (which, behind an IOMMU, may each see it at other bus addresses).
  virtual std::uint32_t devices() const { return 1; }
  /// Bus address of byte `offset` of `region` (from this allocator) as controller `device`
  /// (< devices()) sees it. Default: `region.bus_address(offset)` for every controller.
  virtual std::uint64_t device_bus_address(const dma_region& region, std::size_t offset,
                                           std::uint32_t device) const {
    (void)device;
    return region.bus_address(offset);
  }
};

/// Owns one region of an allocator (move-only).
class dma_buffer {
 public:
  dma_buffer() = default;
  dma_buffer(dma_allocator& alloc, std::size_t bytes)
      : alloc_(&alloc), region_(alloc.allocate(bytes)) {}
  dma_buffer(dma_buffer&& o) noexcept : alloc_(o.alloc_), region_(std::move(o.region_)) {
    o.alloc_ = nullptr;
    o.region_ = {};
  }
  dma_buffer& operator=(dma_buffer&& o) noexcept {
    if (this != &o) {
      reset();
      alloc_ = o.alloc_;
      region_ = std::move(o.region_);
      o.alloc_ = nullptr;
      o.region_ = {};
    }
    return *this;
  }
  dma_buffer(const dma_buffer&) = delete;
  dma_buffer& operator=(const dma_buffer&) = delete;
  ~dma_buffer() { reset(); }

  void reset() noexcept {
    if (alloc_ != nullptr && region_.vaddr != nullptr) alloc_->free(region_);
    alloc_ = nullptr;
    region_ = {};
  }
  const dma_region& region() const { return region_; }
  void* data() const { return region_.vaddr; }
  std::size_t size() const { return region_.size; }
  std::uint64_t bus_address(std::size_t offset = 0) const { return region_.bus_address(offset); }
  template <class T>
  T* as() const {
    return region_.as<T>();
  }

 private:
  dma_allocator* alloc_ = nullptr;
  dma_region region_;
};

/// Host memory whose bus address is its virtual address: what an emulated controller in the
/// same address space reads. Page size 4 KiB.
class host_identity_allocator final : public dma_allocator {
 public:
  dma_region allocate(std::size_t bytes) override;
  void free(dma_region& region) noexcept override;
  std::uint32_t page_size_log2() const override { return 12; }
};

}  // namespace bam
