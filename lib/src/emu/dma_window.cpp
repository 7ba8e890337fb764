// The DMA window of host emulated controllers and its allocator.
#include "bam/emu/dma_window.hpp"

#include <mutex>
#include <stdexcept>

namespace bam::emu {

void dma_window::add(std::uint64_t bus, std::uint64_t size) {
  std::unique_lock lock(mutex_);
  ranges_[bus] = bus + size;
}

void dma_window::remove(std::uint64_t bus) {
  std::unique_lock lock(mutex_);
  ranges_.erase(bus);
}

std::uint8_t* dma_window::map(std::uint64_t bus, std::uint64_t len) const {
  std::shared_lock lock(mutex_);
  auto it = ranges_.upper_bound(bus);
  if (it == ranges_.begin()) return nullptr;
  --it;
  if (bus + len < bus || bus + len > it->second) return nullptr;
  return reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(bus));
}

dma_region window_allocator::allocate(std::size_t bytes) {
  dma_region r = base_.allocate(bytes);
  window_->add(reinterpret_cast<std::uintptr_t>(r.vaddr), r.size);
  return r;
}

void window_allocator::free(dma_region& region) noexcept {
  if (region.vaddr == nullptr) return;
  window_->remove(reinterpret_cast<std::uintptr_t>(region.vaddr));
  base_.free(region);
}

}  // namespace bam::emu
