// kmod_host_allocator: pinned host memory DMA-mapped through bamkit for one or more controllers.
#include "bam/kmod/kmod_host_allocator.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

namespace bam {

namespace {
constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
}  // namespace

kmod_host_allocator::kmod_host_allocator(std::vector<const kmod_device*> devices, bool huge_pages)
    : devices_(std::move(devices)), huge_pages_(huge_pages) {
  if (devices_.empty()) throw std::invalid_argument("kmod_host_allocator: no device");
}

kmod_host_allocator::~kmod_host_allocator() {
  std::lock_guard lock(mutex_);
  for (auto& [vaddr, e] : live_)
    release(vaddr, e.size, e.handles);
  live_.clear();
}

void kmod_host_allocator::release(void* vaddr, std::size_t size,
                                  const std::vector<std::uint64_t>& handles) noexcept {
  for (std::size_t d = 0; d < handles.size(); ++d) {
    try {
      devices_[d]->unmap(handles[d]);
    } catch (...) {  // noexcept: a failed unmap is released with the device file
    }
  }
  ::munmap(vaddr, size);
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
  entry e{size, 12, {}, {}};
  try {
    for (const kmod_device* dev : devices_) {
      kmod_mapping m = dev->map_host(p, size);
      if (e.handles.empty()) e.page_shift = m.page_shift;
      e.handles.push_back(m.handle);
      if (m.page_shift != e.page_shift)
        throw std::runtime_error(dev->path() + ": DMA mapping of another page size");
      e.bus_pages.push_back(std::move(m.bus_pages));
    }
  } catch (...) {
    release(p, size, e.handles);
    throw;
  }
  dma_region r;
  r.vaddr = p;
  r.size = size;
  r.page_size_log2 = e.page_shift;
  r.bus_pages = e.bus_pages.front();
  std::lock_guard lock(mutex_);
  live_[p] = std::move(e);
  return r;
}

std::uint64_t kmod_host_allocator::device_bus_address(const dma_region& region, std::size_t offset,
                                                      std::uint32_t device) const {
  std::lock_guard lock(mutex_);
  const entry& e = live_.at(region.vaddr);
  const std::uint32_t shift = e.page_shift;
  return e.bus_pages.at(device).at(offset >> shift) + (offset & ((std::size_t{1} << shift) - 1));
}

void kmod_host_allocator::free(dma_region& region) noexcept {
  if (region.vaddr == nullptr) return;
  std::vector<std::uint64_t> handles;
  {
    std::lock_guard lock(mutex_);
    auto it = live_.find(region.vaddr);
    if (it != live_.end()) {
      handles = std::move(it->second.handles);
      live_.erase(it);
    }
  }
  release(region.vaddr, region.size, handles);
  region = {};
}

std::size_t kmod_host_allocator::live_regions() const {
  std::lock_guard lock(mutex_);
  return live_.size();
}

}  // namespace bam
