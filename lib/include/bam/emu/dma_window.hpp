// bam/emu/dma_window.hpp: API. The memory a host emulated controller may reach by DMA, like an
// IOMMU: bus addresses outside registered regions are refused (sc::data_transfer_error), never
// dereferenced. window_allocator hands out host memory (identity bus addresses) registered in it.
#pragma once
#include <cstdint>
#include <cstring>
#include <map>
#include <shared_mutex>

#include "bam/dma.hpp"

namespace bam::emu {

/// Registered [bus, bus+size) ranges; thread-safe (lookups take a shared lock).
class dma_window {
 public:
  void add(std::uint64_t bus, std::uint64_t size);
  void remove(std::uint64_t bus);
  /// Host pointer for [bus, bus+len) when the whole range lies in one registered region, else
  /// nullptr.
  std::uint8_t* map(std::uint64_t bus, std::uint64_t len) const;

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::uint64_t, std::uint64_t> ranges_;  // begin -> end
};

/// The DMA policy of the host engine (bam/emu/dma_transfer.hpp): window lookup + memcpy.
struct host_dma {
  const dma_window* window = nullptr;
  std::uint8_t* map(std::uint64_t bus, std::uint64_t len) const { return window->map(bus, len); }
  void copy(void* dst, const void* src, std::uint64_t n) const { std::memcpy(dst, src, n); }
  void zero(void* dst, std::uint64_t n) const { std::memset(dst, 0, n); }
};

/// Host memory with identity bus addresses, registered in a dma_window while allocated.
class window_allocator final : public dma_allocator {
 public:
  explicit window_allocator(dma_window& window) : window_(&window) {}
  dma_region allocate(std::size_t bytes) override;
  void free(dma_region& region) noexcept override;
  std::uint32_t page_size_log2() const override { return base_.page_size_log2(); }

 private:
  host_identity_allocator base_;
  dma_window* window_;
};

}  // namespace bam::emu
