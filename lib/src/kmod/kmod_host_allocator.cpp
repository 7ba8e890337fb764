// kmod_host_allocator: pinned, DMA-mapped host memory for a controller bound to bamkit.
#include "bam/kmod/kmod_host_allocator.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <system_error>

namespace bam {

namespace {
constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
}  // namespace

kmod_host_allocator::~kmod_host_allocator() {
  std::lock_guard lock(mutex_);
  for (auto& [vaddr, e] : live_) {
    try {
      device_->unmap(e.handle);
    } catch (...) {  // the mapping dies with the device file anyway
    }
    ::munmap(vaddr, e.size);
  }
  live_.clear();
}

dma_region kmod_host_allocator::allocate(std::size_t bytes) {
  // One 4 KiB page is contiguous anyway: only larger regions need huge pages.
  const bool huge = huge_pages_ && bytes > (std::size_t{1} << page_size_log2());
  const std::size_t page = huge ? huge_page_bytes : std::size_t{1} << page_size_log2();
  const std::size_t size = bytes == 0 ? page : (bytes + page - 1) / page * page;
  // Anonymous mappings are page aligned and zero-filled; populate and lock them so that the
  // pages the module pins are the ones that stay.
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE;
  if (huge) flags |= MAP_HUGETLB | (21 << MAP_HUGE_SHIFT);  // 2 MiB pages
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mmap");
  if (::mlock(p, size) != 0) {
    const int err = errno;
    ::munmap(p, size);
    throw std::system_error(err, std::generic_category(), "mlock");
  }
  kmod_mapping m;
  try {
    m = device_->map_host(p, size);
  } catch (...) {
    ::munmap(p, size);
    throw;
  }
  dma_region r;
  r.vaddr = p;
  r.size = size;
  r.page_size_log2 = m.page_shift;
  r.bus_pages = std::move(m.bus_pages);
  std::lock_guard lock(mutex_);
  live_[p] = entry{m.handle, size};
  return r;
}

void kmod_host_allocator::free(dma_region& region) noexcept {
  if (region.vaddr == nullptr) return;
  {
    std::lock_guard lock(mutex_);
    auto it = live_.find(region.vaddr);
    if (it != live_.end()) {
      try {
        device_->unmap(it->second.handle);
      } catch (...) {  // noexcept: a failed unmap is released with the device file
      }
      live_.erase(it);
    }
  }
  ::munmap(region.vaddr, region.size);
  region = {};
}

std::size_t kmod_host_allocator::live_regions() const {
  std::lock_guard lock(mutex_);
  return live_.size();
}

}  // namespace bam
